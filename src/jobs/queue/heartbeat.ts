import type { Kysely } from 'kysely';
import type { Database } from '../../storage/schema.ts';

/** Extends the lease of a run this worker holds. Returns false when the worker no longer holds it. */
export async function extendLease(db: Kysely<Database>, runId: string, workerId: string, leaseMs: number, now = Date.now()): Promise<boolean> {
  const result = await db
    .updateTable('job_queue')
    .set({ locked_until: now + leaseMs })
    .where('id', '=', runId)
    .where('locked_by', '=', workerId)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}
