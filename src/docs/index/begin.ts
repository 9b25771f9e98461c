import type { Storage } from '../../storage/dialect.ts';
import { lockState } from './lock.ts';
import { purgeRetired, rollBackBuild } from './rollback.ts';
import type { Build } from './types.ts';

/**
 * Starts a build of the project's docs from `commit`: rolls back a build that never finished (it
 * failed or its builder died), deletes the rows the current generation no longer holds, and marks
 * the next generation as being built. Readers keep seeing the current generation until
 * finishBuild switches to it.
 */
export async function beginBuild(storage: Storage, projectId: string, commit: string, now = Date.now()): Promise<Build> {
  return storage.db.transaction().execute(async (trx) => {
    await trx
      .insertInto('docs_state')
      .values({ project_id: projectId, generation: 0, status: 'none', pages: 0, sections: 0, started_generation: 0 })
      .onConflict((conflict) => conflict.column('project_id').doNothing())
      .execute();
    const state = (await lockState(trx, storage, projectId))!;
    if (state.building_generation !== null) await rollBackBuild(trx, storage, projectId, state.building_generation);
    await purgeRetired(trx, storage, projectId, state.generation);
    const generation = state.started_generation + 1;
    await trx
      .updateTable('docs_state')
      .set({ status: 'building', building_generation: generation, started_generation: generation, building_commit: commit, building_started_at: now })
      .where('project_id', '=', projectId)
      .execute();
    return { projectId, generation };
  });
}
