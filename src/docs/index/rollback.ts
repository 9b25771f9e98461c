import type { Kysely } from 'kysely';
import type { Storage } from '../../storage/dialect.ts';
import type { Database } from '../../storage/schema.ts';
import { fullTextIndexes } from '../search/engines/engines.ts';

/**
 * Undoes an unfinished build of `generation`: deletes the rows it wrote and gives the rows it
 * retired back their place (no end marker), so the index is as the last finished build left it.
 */
export async function rollBackBuild(trx: Kysely<Database>, storage: Storage, projectId: string, generation: number): Promise<void> {
  const written = trx.selectFrom('docs_sections').select('id').where('project_id', '=', projectId).where('first_generation', '=', generation);
  await fullTextIndexes[storage.profile.name].remove(trx, written);
  await trx.deleteFrom('docs_sections').where('project_id', '=', projectId).where('first_generation', '=', generation).execute();
  await trx.deleteFrom('docs_pages').where('project_id', '=', projectId).where('first_generation', '=', generation).execute();
  await trx
    .updateTable('docs_sections')
    .set({ retired_generation: null })
    .where('project_id', '=', projectId)
    .where('retired_generation', '=', generation)
    .execute();
  await trx
    .updateTable('docs_pages')
    .set({ retired_generation: null })
    .where('project_id', '=', projectId)
    .where('retired_generation', '=', generation)
    .execute();
}

/**
 * Deletes the rows that `generation` (the current one) and every later one no longer hold. Run when
 * the next build starts rather than at the switch, so a statement that began reading the previous
 * generation just before the switch never loses its rows on an engine without snapshots.
 */
export async function purgeRetired(trx: Kysely<Database>, storage: Storage, projectId: string, generation: number): Promise<void> {
  const retired = trx.selectFrom('docs_sections').select('id').where('project_id', '=', projectId).where('retired_generation', '<=', generation);
  await fullTextIndexes[storage.profile.name].remove(trx, retired);
  await trx.deleteFrom('docs_sections').where('project_id', '=', projectId).where('retired_generation', '<=', generation).execute();
  await trx.deleteFrom('docs_pages').where('project_id', '=', projectId).where('retired_generation', '<=', generation).execute();
}
