import type { Kysely } from 'kysely';
import type { Database } from '../../storage/schema.ts';

/**
 * Gives a held run back to the queue without counting the attempt (graceful shutdown), so any
 * worker can take it at once.
 */
export async function releaseRun(db: Kysely<Database>, runId: string, workerId: string): Promise<void> {
  await db
    .updateTable('job_queue')
    .set((eb) => ({ locked_by: null, locked_until: null, attempts: eb('attempts', '-', 1) }))
    .where('id', '=', runId)
    .where('locked_by', '=', workerId)
    .execute();
}
