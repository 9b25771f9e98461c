import type { AppContext } from '../http/context.ts';
import { conflict } from '../http/errors.ts';
import type { ProjectRow } from '../storage/tables/accounts.ts';
import type { JobRow } from '../storage/tables/jobs.ts';
import { findJobRow } from './service.ts';
import { announceRecorded, appendMessage, appendStatus } from './transcript.ts';
import { queueJobEvent } from './webhooks/emit.ts';

declare module '../http/context.ts' {
  interface QuireEvents {
    /** A job was cancelled by this process; a local worker running it aborts at once (others poll). */
    'job-cancelled': [jobId: string];
  }
}

/**
 * The one transition to a cancelled job: the job's queue entry is removed (a queued run never starts;
 * a running one loses its claim, which its worker sees at once in this process and within
 * QUIRE_JOB_CANCEL_POLL_MS elsewhere, and checks again right before and after pushing), and the
 * job becomes `failed` with an `error` that says who cancelled it and when, with its `job.cancelled`
 * webhook deliveries in the same transaction. 409 when the job is not active, including when its run
 * finished first.
 */
export async function cancelJob(context: AppContext, project: ProjectRow, jobId: string, cancelledBy: string | null): Promise<JobRow> {
  const notActive = (status: string) => conflict(`The job is ${status}, not active: only an active job can be cancelled.`);
  const { cancelled, webhooks } = await context.storage.db.transaction().execute(async (trx) => {
    const job = await findJobRow(trx, project, jobId);
    if (job.status !== 'active') throw notActive(job.status);
    // The queue entry first, then the job: the order in which the worker's queue operations lock them.
    await trx.deleteFrom('job_queue').where('job_id', '=', job.id).execute();
    const now = Date.now();
    const error = `The job was cancelled${cancelledBy ? ` by ${cancelledBy}` : ''} at ${new Date(now).toISOString()}; nothing is pushed after a cancel. Send a follow-up message to continue.`;
    const updated = await trx
      .updateTable('jobs')
      .set({ status: 'failed', error, cancelled_at: now, cancelled_by: cancelledBy, updated_at: now })
      .where('id', '=', job.id)
      .where('status', '=', 'active')
      .executeTakeFirst();
    if (updated.numUpdatedRows === 0n) throw notActive('no longer active');
    const row: JobRow = { ...job, status: 'failed', error, cancelled_at: now, cancelled_by: cancelledBy, updated_at: now };
    await appendMessage(trx, job.id, 'event', { type: 'job-cancelled', by: cancelledBy, error }, now);
    await appendStatus(trx, row);
    return { cancelled: row, webhooks: await queueJobEvent(trx, row, 'job.cancelled', now) };
  });
  context.events.emit('job-cancelled', cancelled.id);
  announceRecorded(cancelled.id);
  if (webhooks) context.events.emit('webhooks-queued');
  return cancelled;
}
