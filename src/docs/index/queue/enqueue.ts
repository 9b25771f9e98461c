import type { Storage } from '../../../storage/dialect.ts';

/** Channel on which builders in other processes are woken when a docs build is requested. */
export const docsBuildsChannel = 'quire_docs_builds';

declare module '../../../http/context.ts' {
  interface QuireEvents {
    /** A docs build was requested in this process: its builder looks for work at once. */
    'docs-build-requested': [];
  }
}

/**
 * Requests a build of the project's docs index. Requests coalesce: a project has at most one build
 * queued or running, and a request made while one runs makes it run once more afterwards (the
 * source may have moved after the running build took its snapshot). Builders elsewhere are woken
 * through the database; the caller wakes its own process (`docs-build-requested`).
 */
export async function enqueueBuild(storage: Storage, projectId: string, now = Date.now()): Promise<void> {
  await storage.db.transaction().execute(async (trx) => {
    await trx
      .insertInto('docs_builds')
      .values({
        project_id: projectId,
        requested_seq: 1,
        claimed_seq: 0,
        finished_seq: 0,
        requested_at: now,
        attempts: 0,
        locked_by: null,
        locked_until: null,
        last_commit: null,
        last_docs_path: null,
        built_docs_path: null,
        page_errors: '[]',
        finished_at: null,
        poll_after: null,
        poll_failures: 0,
      })
      .onConflict((conflict) =>
        conflict.column('project_id').doUpdateSet((eb) => ({
          // A request already waiting covers this one; only a running or finished build needs another.
          requested_seq: eb
            .case()
            .when(eb.ref('docs_builds.requested_seq'), '>', eb.ref('docs_builds.claimed_seq'))
            .then(eb.ref('docs_builds.requested_seq'))
            .else(eb(eb.ref('docs_builds.requested_seq'), '+', 1))
            .end(),
          requested_at: now,
        })),
      )
      .execute();
    await storage.notify(trx, docsBuildsChannel);
  });
}
