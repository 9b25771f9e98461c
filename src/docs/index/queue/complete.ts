import type { Storage } from '../../../storage/dialect.ts';
import type { ClaimedBuild } from './claim.ts';

/** A page the build could not index as it is, with the reason; kept with the build for `GET /v1/docs/{projectId}`. */
export interface PageError {
  path: string;
  message: string;
}

/** Page errors kept per build: enough to find what is wrong, bounded whatever the repository holds. */
export const maxPageErrors = 300;

/** What a finished build looked at: the commit and docs path (a later request for the same ones is a no-op), and its page errors. */
export interface BuildResult {
  commit: string;
  docsPath: string;
  /** Null keeps the errors of the generation that still answers (a failed build, or one with nothing to do). */
  pageErrors: PageError[] | null;
}

/**
 * Records that the build served its request and releases the project: another request made while
 * it ran keeps the project queued. Does nothing and returns false when the builder lost its lease
 * (another builder took the request over).
 */
export async function completeBuild(storage: Storage, build: ClaimedBuild, builderId: string, result: BuildResult, now = Date.now()): Promise<boolean> {
  const updated = await storage.db
    .updateTable('docs_builds')
    .set((eb) => ({
      finished_seq: build.seq,
      locked_by: null,
      locked_until: null,
      attempts: 0,
      finished_at: now,
      last_commit: result.commit,
      last_docs_path: result.docsPath,
      built_docs_path: result.docsPath,
      page_errors: result.pageErrors === null ? eb.ref('page_errors') : JSON.stringify(result.pageErrors.slice(0, maxPageErrors)),
    }))
    .where('project_id', '=', build.projectId)
    .where('locked_by', '=', builderId)
    .where('claimed_seq', '=', build.seq)
    .executeTakeFirst();
  return updated.numUpdatedRows > 0n;
}
