import { sql } from 'kysely';
import type { Storage } from '../../storage/dialect.ts';
import { BuildSupersededError, type Build } from './types.ts';
import { visibleAt } from './visible.ts';

/**
 * Switches the project's readers to `build`'s generation, in one statement that also records the
 * commit and the counts. Fails with BuildSupersededError when another build took its place. The
 * rows the new generation retired stay until the next build starts (see rollback.ts).
 */
export async function finishBuild(storage: Storage, build: Build, now = Date.now()): Promise<void> {
  const { projectId, generation } = build;
  const pages = sql<number>`(select count(*) from docs_pages where project_id = ${projectId} and ${visibleAt('docs_pages', generation)})`;
  const sections = sql<number>`(select count(*) from docs_sections where project_id = ${projectId} and ${visibleAt('docs_sections', generation)})`;
  const switched = await storage.db
    .updateTable('docs_state')
    .set((eb) => ({
      generation,
      built_commit: eb.ref('building_commit'),
      built_at: now,
      status: 'ready',
      error: null,
      pages,
      sections,
      building_generation: null,
      building_commit: null,
      building_started_at: null,
    }))
    .where('project_id', '=', projectId)
    .where('building_generation', '=', generation)
    .executeTakeFirst();
  if (switched.numUpdatedRows === 0n) throw new BuildSupersededError(build);
}
