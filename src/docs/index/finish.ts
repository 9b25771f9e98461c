import { sql } from 'kysely';
import type { Storage } from '../../storage/dialect.ts';
import { BuildSupersededError, type Build } from './types.ts';

/**
 * Rows of `table` that `generation` holds beside the current generation's, counted from the build's
 * own rows alone: those it wrote (and did not take out again) less the earlier rows it retired. Earlier builds
 * that never finished were rolled back when this one began, so no other generation lies between.
 */
const countChange = (table: 'docs_pages' | 'docs_sections', projectId: string, generation: number) =>
  sql<number>`((select count(*) from ${sql.table(table)} where project_id = ${projectId} and first_generation = ${generation} and retired_generation is null)
    - (select count(*) from ${sql.table(table)} where project_id = ${projectId} and retired_generation = ${generation} and first_generation < ${generation}))`;

/**
 * Switches the project's readers to `build`'s generation, in one statement that also records the
 * commit and the counts. Fails with BuildSupersededError when another build took its place. The
 * rows the new generation retired stay until the next build starts (see rollback.ts). The counts
 * are the current ones changed by what the build wrote and retired, so a build of one page reads a
 * few rows instead of counting every section of the site.
 */
export async function finishBuild(storage: Storage, build: Build, now = Date.now()): Promise<void> {
  const { projectId, generation } = build;
  const pages = sql<number>`pages + ${countChange('docs_pages', projectId, generation)}`;
  const sections = sql<number>`sections + ${countChange('docs_sections', projectId, generation)}`;
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
