import type { Kysely } from 'kysely';
import { newId } from '../../lib/ids.ts';
import type { Storage } from '../../storage/dialect.ts';
import type { Database } from '../../storage/schema.ts';

/** Channel on which workers in other processes are woken when a run is enqueued. */
export const jobsChannel = 'quire_jobs';

/**
 * Queues a run of the job. Call inside the transaction that creates or reopens the job: the run
 * exists exactly when the job does, and workers elsewhere are woken when it commits.
 */
export async function enqueueRun(storage: Storage, trx: Kysely<Database>, jobId: string, maxAttempts: number, now = Date.now()): Promise<string> {
  const id = newId('run');
  await trx
    .insertInto('job_queue')
    .values({ id, job_id: jobId, max_attempts: maxAttempts, available_at: now, locked_by: null, locked_until: null, created_at: now })
    .execute();
  await storage.notify(trx, jobsChannel);
  return id;
}
