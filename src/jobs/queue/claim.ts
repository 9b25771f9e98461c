import type { Storage } from '../../storage/dialect.ts';
import { announceRecorded, appendMessage, appendStatus } from '../transcript.ts';
import { queueJobEvent } from '../webhooks/emit.ts';

export interface ClaimedRun {
  id: string;
  jobId: string;
  attempt: number;
}

/**
 * Takes up to `count` runnable queue entries for `workerId` with a lease of `leaseMs`.
 * An entry is runnable when it is unlocked or its lease expired (its worker died). An entry whose
 * attempts are used up is not run again: its job fails with an error saying it was interrupted.
 */
export async function claimRuns(storage: Storage, workerId: string, count: number, leaseMs: number, now = Date.now()): Promise<ClaimedRun[]> {
  const { db, profile } = storage;
  const failed: string[] = [];
  const claimed = await db.transaction().execute(async (trx) => {
    const candidates = await trx
      .selectFrom('job_queue')
      .select(['id', 'job_id', 'attempts', 'max_attempts'])
      .where('available_at', '<=', now)
      .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', now)]))
      .orderBy('available_at')
      .orderBy('id')
      .limit(count)
      .$if(profile.skipLocked, (query) => query.forUpdate().skipLocked())
      .execute();
    const runs: ClaimedRun[] = [];
    for (const candidate of candidates) {
      if (candidate.attempts >= candidate.max_attempts) {
        const error = `The job was interrupted ${candidate.attempts} times (its worker stopped before finishing) and will not be retried. Send a follow-up message to try again.`;
        await trx.deleteFrom('job_queue').where('id', '=', candidate.id).execute();
        const updated = await trx
          .updateTable('jobs')
          .set({ status: 'failed', error, updated_at: now })
          .where('id', '=', candidate.job_id)
          .where('status', '=', 'active')
          .executeTakeFirst();
        await appendMessage(trx, candidate.job_id, 'event', { type: 'job-failed', error }, now);
        const job = await trx.selectFrom('jobs').selectAll().where('id', '=', candidate.job_id).executeTakeFirstOrThrow();
        await appendStatus(trx, job);
        failed.push(candidate.job_id);
        if (updated.numUpdatedRows > 0n) await queueJobEvent(trx, job, 'job.failed', now);
        continue;
      }
      await trx
        .updateTable('job_queue')
        .set({ attempts: candidate.attempts + 1, locked_by: workerId, locked_until: now + leaseMs })
        .where('id', '=', candidate.id)
        .execute();
      runs.push({ id: candidate.id, jobId: candidate.job_id, attempt: candidate.attempts + 1 });
    }
    return runs;
  });
  for (const jobId of failed) announceRecorded(jobId);
  return claimed;
}
