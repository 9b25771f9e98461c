/** Where `quire analytics tail` stopped in a file, per project and file identity (see tail.ts). */
import type { Kysely } from 'kysely';
import type { Database } from '../../storage/schema.ts';

export interface TailPosition {
  position: number;
  lines: number;
}

export async function loadTailPosition(db: Kysely<Database>, projectId: string, identity: string): Promise<TailPosition | undefined> {
  return db
    .selectFrom('analytics_tail_positions')
    .select(['position', 'lines'])
    .where('project_id', '=', projectId)
    .where('file_identity', '=', identity)
    .executeTakeFirst();
}

/** Stores a position once the lines before it are committed; never moves a stored position back. */
export async function saveTailPosition(db: Kysely<Database>, projectId: string, identity: string, path: string, at: TailPosition): Promise<void> {
  const row = { project_id: projectId, file_identity: identity, path, position: at.position, lines: at.lines, updated_at: Date.now() };
  await db
    .insertInto('analytics_tail_positions')
    .values(row)
    .onConflict((conflict) =>
      conflict
        .columns(['project_id', 'file_identity'])
        .doUpdateSet({ path: row.path, position: row.position, lines: row.lines, updated_at: row.updated_at })
        .where('analytics_tail_positions.position', '<=', row.position),
    )
    .execute();
}
