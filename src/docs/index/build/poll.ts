import type { Logger } from 'pino';
import type { Config } from '../../../config/config.ts';
import type { Storage } from '../../../storage/dialect.ts';
import { enqueueBuild } from '../queue/enqueue.ts';
import { docsPathOf, repositoryAtRef, type SourceAccess } from './source.ts';

/** A repository that keeps failing to answer is asked at most this rarely. */
const maxBackoffMs = 24 * 3600 * 1000;

export interface PollContext {
  storage: Storage;
  config: Config;
  logger: Logger;
  source: SourceAccess;
  /** Called after a build was requested, to wake this process's builder. */
  onRequested(): void;
}

/**
 * One poll of the projects' sources: for up to QUIRE_DOCS_POLL_BATCH projects with a repository whose
 * turn has come (never asked first, then the longest waiting), asks the remote for the ref's commit
 * (`git ls-remote`, no fetch) and requests a build when it is not the one last built or tried. A
 * repository that cannot be resolved waits twice as long after each failure, up to a day.
 * Returns the projects asked.
 */
export async function pollSources(context: PollContext, now = Date.now()): Promise<number> {
  const { storage, config } = context;
  const intervalMs = config.docsPollSeconds * 1000;
  const projects = await storage.db
    .selectFrom('projects')
    .leftJoin('docs_builds', 'docs_builds.project_id', 'projects.id')
    .selectAll('projects')
    .select(['docs_builds.last_commit', 'docs_builds.last_docs_path', 'docs_builds.poll_failures', 'docs_builds.requested_seq', 'docs_builds.finished_seq'])
    .where('projects.repository', 'is not', null)
    .where((eb) => eb.or([eb('docs_builds.poll_after', 'is', null), eb('docs_builds.poll_after', '<=', now)]))
    .orderBy((eb) => eb.fn.coalesce('docs_builds.poll_after', eb.val(0)))
    .orderBy('projects.id')
    .limit(config.docsPollBatch)
    .execute();
  for (const project of projects) {
    const earlierFailures = project.poll_failures ?? 0;
    let failures = 0;
    try {
      const commit = await context.source.remoteCommit(await repositoryAtRef(storage, config, { ...project, repository: project.repository! }));
      const building = project.requested_seq !== null && project.requested_seq > (project.finished_seq ?? 0);
      // A ref the remote does not have is built once, so its error shows, then asked about ever more rarely.
      if (commit === null) failures = earlierFailures + 1;
      const moved = commit !== project.last_commit || docsPathOf(project) !== (project.last_docs_path ?? '');
      if (!building && (commit === null ? earlierFailures === 0 : moved)) {
        await enqueueBuild(storage, project.id, now);
        context.onRequested();
      }
    } catch (error) {
      failures = earlierFailures + 1;
      context.logger.info({ projectId: project.id, err: error, failures }, 'docs poll: could not resolve the repository; backing off');
    }
    const pollAfter = now + Math.min(maxBackoffMs, intervalMs * 2 ** failures);
    await recordPoll(storage, project.id, pollAfter, failures, now);
  }
  return projects.length;
}

async function recordPoll(storage: Storage, projectId: string, pollAfter: number, failures: number, now: number): Promise<void> {
  await storage.db
    .insertInto('docs_builds')
    .values({
      project_id: projectId,
      requested_seq: 0,
      claimed_seq: 0,
      finished_seq: 0,
      requested_at: now,
      attempts: 0,
      page_errors: '[]',
      poll_after: pollAfter,
      poll_failures: failures,
    })
    .onConflict((conflict) => conflict.column('project_id').doUpdateSet({ poll_after: pollAfter, poll_failures: failures }))
    .execute();
}

/** Runs `pollSources` every QUIRE_DOCS_POLL_SECONDS, the first time one interval after start; returns how to stop. */
export function startSourcePoll(context: PollContext): () => Promise<void> {
  let running: Promise<unknown> | null = null;
  const timer = setInterval(() => {
    // A poll slower than the interval is not overlapped by the next one.
    running ??= pollSources(context)
      .catch((error: unknown) => context.logger.error({ err: error }, 'docs poll failed; will retry'))
      .finally(() => (running = null));
  }, context.config.docsPollSeconds * 1000);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await running;
  };
}
