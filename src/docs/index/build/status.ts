import type { Storage } from '../../../storage/dialect.ts';
import type { PageError } from '../queue/complete.ts';
import { enqueueBuild } from '../queue/enqueue.ts';
import { readDocsState } from '../state.ts';
import type { DocsStatus } from '../types.ts';

/** A project's docs index as `GET /v1/docs/{projectId}` shows it. */
export interface DocsStatusView {
  status: DocsStatus;
  /** The commit of the generation that answers. */
  commit: string | null;
  /** ISO time that generation was switched to. */
  builtAt: string | null;
  pages: number;
  sections: number;
  /** Why the last build failed; null after a successful one. */
  error: string | null;
  pageErrors: PageError[];
}

/**
 * The index's state with its builds': `building` while a build is queued or running (the previous
 * generation answers meanwhile), else how the last build ended; page errors of the last completed build.
 */
export async function docsStatus(storage: Storage, projectId: string): Promise<DocsStatusView> {
  const [state, build] = await Promise.all([
    readDocsState(storage, projectId),
    storage.db.selectFrom('docs_builds').select(['requested_seq', 'finished_seq', 'page_errors']).where('project_id', '=', projectId).executeTakeFirst(),
  ]);
  const building = build !== undefined && build.requested_seq > build.finished_seq;
  return {
    status: building ? 'building' : state.status,
    commit: state.commit,
    builtAt: state.builtAt === null ? null : new Date(state.builtAt).toISOString(),
    pages: state.pages,
    sections: state.sections,
    error: state.error,
    pageErrors: JSON.parse(build?.page_errors ?? '[]') as PageError[],
  };
}

/** Requests a build of the project's docs and wakes this process's builder; other processes are woken through the database. */
export async function requestBuild(storage: Storage, events: { emit(event: 'docs-build-requested'): boolean }, projectId: string): Promise<void> {
  await enqueueBuild(storage, projectId);
  events.emit('docs-build-requested');
}
