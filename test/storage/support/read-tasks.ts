/** Functions the reading-thread test runs on a thread's read-only connection (Storage.readers). */
import { sql } from 'kysely';
import type { ReadStorage } from '../../../src/storage/dialect.ts';

export async function projectNames(storage: ReadStorage, prefix: string): Promise<string[]> {
  const rows = await storage.db.selectFrom('docs_state').select('project_id').where('project_id', 'like', `${prefix}%`).orderBy('project_id').execute();
  return rows.map((row) => row.project_id);
}

export async function write(storage: ReadStorage): Promise<void> {
  await sql`delete from docs_state`.execute(storage.db);
}
