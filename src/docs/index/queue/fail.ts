import type { Storage } from '../../../storage/dialect.ts';
import type { ClaimedBuild } from './claim.ts';

/**
 * Records that the build failed (its error is in docs_state) and releases the project. The commit it
 * tried, when it got that far, is kept, so the poll loop does not build the same failing commit
 * again; a refresh does. Returns false when the builder lost its lease.
 */
export async function failBuild(
  storage: Storage,
  build: ClaimedBuild,
  builderId: string,
  tried: { commit: string; docsPath: string } | null,
  now = Date.now(),
): Promise<boolean> {
  const updated = await storage.db
    .updateTable('docs_builds')
    .set((eb) => ({
      finished_seq: build.seq,
      locked_by: null,
      locked_until: null,
      attempts: 0,
      finished_at: now,
      last_commit: tried ? tried.commit : eb.ref('last_commit'),
      last_docs_path: tried ? tried.docsPath : eb.ref('last_docs_path'),
    }))
    .where('project_id', '=', build.projectId)
    .where('locked_by', '=', builderId)
    .where('claimed_seq', '=', build.seq)
    .executeTakeFirst();
  return updated.numUpdatedRows > 0n;
}
