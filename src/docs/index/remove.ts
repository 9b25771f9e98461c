import type { Kysely } from 'kysely';
import type { Storage } from '../../storage/dialect.ts';
import type { Database } from '../../storage/schema.ts';
import { fullTextIndexes } from '../search/engines/engines.ts';
import { lockBuild } from './lock.ts';
import type { Build } from './types.ts';

/** Paths per statement, well under either engine's bound parameters. */
const pathsPerStatement = 500;

/**
 * Takes the pages at `paths` out of `build`'s generation: rows this build already wrote for them
 * (a resumed or repeated write) are deleted; the current rows are retired at the build's generation,
 * so the current generation still holds them and the new one does not.
 */
export async function retirePaths(trx: Kysely<Database>, storage: Storage, build: Build, paths: string[]): Promise<void> {
  const { projectId, generation } = build;
  for (let start = 0; start < paths.length; start += pathsPerStatement) {
    const chunk = paths.slice(start, start + pathsPerStatement);
    const pages = trx.selectFrom('docs_pages').select('id').where('project_id', '=', projectId).where('path', 'in', chunk);
    const written = pages.where('first_generation', '=', generation);
    await fullTextIndexes[storage.profile.name].remove(trx, trx.selectFrom('docs_sections').select('id').where('page_id', 'in', written));
    await trx.deleteFrom('docs_sections').where('page_id', 'in', written).execute();
    await trx.deleteFrom('docs_pages').where('id', 'in', written).execute();
    const current = pages.where('first_generation', '<', generation).where('retired_generation', 'is', null);
    await trx.updateTable('docs_sections').set({ retired_generation: generation }).where('page_id', 'in', current).execute();
    await trx.updateTable('docs_pages').set({ retired_generation: generation }).where('id', 'in', current).execute();
  }
}

/** Removes the pages at `paths` (files deleted or no longer in the navigation) from `build`'s generation. */
export async function removePages(storage: Storage, build: Build, paths: string[]): Promise<void> {
  await storage.db.transaction().execute(async (trx) => {
    await lockBuild(trx, storage, build);
    await retirePaths(trx, storage, build, paths);
  });
}
