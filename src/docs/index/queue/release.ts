import type { Storage } from '../../../storage/dialect.ts';
import type { ClaimedBuild } from './claim.ts';

/** Gives an interrupted build back to the queue without counting the attempt (graceful shutdown), so any builder can take it at once. */
export async function releaseBuild(storage: Storage, build: ClaimedBuild, builderId: string): Promise<void> {
  await storage.db
    .updateTable('docs_builds')
    .set((eb) => ({ locked_by: null, locked_until: null, attempts: eb('attempts', '-', 1) }))
    .where('project_id', '=', build.projectId)
    .where('locked_by', '=', builderId)
    .where('claimed_seq', '=', build.seq)
    .execute();
}
