import type { Storage } from '../../storage/dialect.ts';
import { visibleAt } from './visible.ts';

/**
 * Every page path of the project's `generation` (by default the one readers see) with the hash it
 * was built from, so an incremental build writes only the pages whose hash changed and removes the
 * paths it no longer has.
 */
export async function listPagePaths(storage: Storage, projectId: string, generation?: number): Promise<Map<string, string>> {
  const at =
    generation ?? (await storage.db.selectFrom('docs_state').select('generation').where('project_id', '=', projectId).executeTakeFirst())?.generation ?? 0;
  const rows = await storage.db
    .selectFrom('docs_pages')
    .select(['path', 'source_hash'])
    .where('project_id', '=', projectId)
    .where(visibleAt('docs_pages', at))
    .execute();
  return new Map(rows.map((row) => [row.path, row.source_hash]));
}
