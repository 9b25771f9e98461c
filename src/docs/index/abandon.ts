import type { Storage } from '../../storage/dialect.ts';
import { lockState } from './lock.ts';
import { rollBackBuild } from './rollback.ts';
import type { Build } from './types.ts';

/**
 * Gives up `build`: its rows are deleted and the rows it replaced restored. With an `error` the
 * project's status becomes `failed` and keeps the error; readers keep the last finished generation
 * either way. Does nothing when another build already took its place.
 */
export async function abandonBuild(storage: Storage, build: Build, error: string | null): Promise<void> {
  await storage.db.transaction().execute(async (trx) => {
    const state = await lockState(trx, storage, build.projectId);
    if (state?.building_generation !== build.generation) return;
    await rollBackBuild(trx, storage, build.projectId, build.generation);
    const status = error !== null ? 'failed' : state.generation > 0 ? 'ready' : 'none';
    await trx
      .updateTable('docs_state')
      .set({ status, error, building_generation: null, building_commit: null, building_started_at: null })
      .where('project_id', '=', build.projectId)
      .execute();
  });
}
