import type { Kysely } from 'kysely';
import { newId } from '../../lib/ids.ts';
import type { Database } from '../../storage/schema.ts';

/** Queues a run of the job. Call inside the transaction that creates or reopens the job. */
export async function enqueueRun(trx: Kysely<Database>, jobId: string, maxAttempts: number, now = Date.now()): Promise<string> {
  const id = newId('run');
  await trx.insertInto('job_queue').values({ id, job_id: jobId, max_attempts: maxAttempts, available_at: now, locked_by: null, locked_until: null, created_at: now }).execute();
  return id;
}
