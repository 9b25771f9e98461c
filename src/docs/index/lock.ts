import type { Kysely } from 'kysely';
import type { Storage } from '../../storage/dialect.ts';
import type { Database } from '../../storage/schema.ts';
import { BuildSupersededError, type Build } from './types.ts';

/**
 * Reads the project's docs state inside `trx`, locking its row where the engine has row locks, so
 * that writes, the switch and the start of another build of one project take turns (SQLite's write
 * lock already serializes them).
 */
export function lockState(trx: Kysely<Database>, storage: Storage, projectId: string) {
  return trx
    .selectFrom('docs_state')
    .selectAll()
    .where('project_id', '=', projectId)
    .$if(storage.profile.rowLocks, (query) => query.forUpdate())
    .executeTakeFirst();
}

/** Fails unless `build` is still the project's build in progress (no later build replaced it). */
export async function lockBuild(trx: Kysely<Database>, storage: Storage, build: Build): Promise<void> {
  const state = await lockState(trx, storage, build.projectId);
  if (state?.building_generation !== build.generation) throw new BuildSupersededError(build);
}
