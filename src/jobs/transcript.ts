import { EventEmitter } from 'node:events';
import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.ts';
import type { JobRow, MessageRole, StoredRole } from '../storage/tables/jobs.ts';
import { jobView, messageView } from './view.ts';
import type { TranscriptMessage } from './runner.ts';

/**
 * Wakes this process's event streams when a job's row of the event sequence commits (`'recorded'`,
 * with the job id). The writers (worker, queue operations, job service) get only a database handle,
 * so the wake-up lives here, beside the one function that appends; other processes' writes are
 * found by the streams' poll (jobs/events/).
 */
export const recordedRows = new EventEmitter<{ recorded: [jobId: string] }>();
recordedRows.setMaxListeners(0);

/**
 * Appends one row to a job's event sequence: a transcript entry, or (`status`) the job object after
 * a status change. Writers of one job take turns on the job's row (SQLite: the write lock taken at
 * BEGIN; PostgreSQL: the job row's lock), so sequence numbers are unique and a reader that has seen row
 * n + 1 has seen row n. Inside a transaction, the caller announces the row after it commits
 * (`announceRecorded`).
 */
export async function appendRow(db: Kysely<Database>, jobId: string, role: StoredRole, content: unknown, now = Date.now()): Promise<void> {
  if (!db.isTransaction) {
    await db.transaction().execute((trx) => appendRow(trx, jobId, role, content, now));
    announceRecorded(jobId);
    return;
  }
  // A no-op update is the lock both engines understand: PostgreSQL locks the row until commit, and
  // SQLite (which has no `FOR UPDATE`) already holds its one write lock.
  await db
    .updateTable('jobs')
    .set((eb) => ({ id: eb.ref('id') }))
    .where('id', '=', jobId)
    .execute();
  const last = await db
    .selectFrom('job_messages')
    .select((eb) => eb.fn.max('seq').as('seq'))
    .where('job_id', '=', jobId)
    .executeTakeFirst();
  const seq = last?.seq === null || last?.seq === undefined ? 0 : Number(last.seq) + 1;
  await db
    .insertInto('job_messages')
    .values({ job_id: jobId, seq, role, content: JSON.stringify(content), created_at: now })
    .execute();
}

/** Appends one transcript entry (see `appendRow`). Never pass secrets. */
export function appendMessage(db: Kysely<Database>, jobId: string, role: MessageRole, content: Record<string, unknown>, now = Date.now()): Promise<void> {
  return appendRow(db, jobId, role, content, now);
}

/** Records a status change: the job object as `GET …/job/{id}` answers it, for the event stream. */
export function appendStatus(db: Kysely<Database>, job: JobRow, now = job.updated_at): Promise<void> {
  return appendRow(db, job.id, 'status', jobView(job), now);
}

/** Tells this process's streams that rows of `jobId` committed. */
export function announceRecorded(jobId: string): void {
  recordedRows.emit('recorded', jobId);
}

/** The transcript (`GET …/messages`), oldest first: every row but status rows. */
export async function listMessages(db: Kysely<Database>, jobId: string): Promise<TranscriptMessage[]> {
  const rows = await db.selectFrom('job_messages').selectAll().where('job_id', '=', jobId).where('role', '!=', 'status').orderBy('seq').execute();
  return rows.map(messageView);
}
