import type { Storage } from '../../../storage/dialect.ts';
import type { ClaimedBuild } from './claim.ts';

/** Extends the lease of a build this builder holds. Returns false when it no longer holds it. */
export async function extendBuildLease(storage: Storage, build: ClaimedBuild, builderId: string, leaseMs: number, now = Date.now()): Promise<boolean> {
  const result = await storage.db
    .updateTable('docs_builds')
    .set({ locked_until: now + leaseMs })
    .where('project_id', '=', build.projectId)
    .where('locked_by', '=', builderId)
    .where('claimed_seq', '=', build.seq)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}
