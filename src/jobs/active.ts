import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.ts';

/**
 * Whether the job is active: running or waiting for a worker, so its checkout may still be in use.
 * The workspace sweeper asks this before removing a checkout a job left behind.
 */
export async function isJobActive(db: Kysely<Database>, jobId: string): Promise<boolean> {
  return (await db.selectFrom('jobs').select('status').where('id', '=', jobId).executeTakeFirst())?.status === 'active';
}
