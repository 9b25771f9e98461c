import { availableParallelism } from 'node:os';
import type { Logger } from 'pino';
import { findProject } from '../../../accounts/projects.ts';
import type { Config } from '../../../config/config.ts';
import { createPageAnalyzer } from '../../../sites/page-analyzer.ts';
import type { Storage } from '../../../storage/dialect.ts';
import type { CommitTree } from '../../../workspace/commit-tree.ts';
import { abandonBuild } from '../abandon.ts';
import { beginBuild } from '../begin.ts';
import { recordFailure } from '../fail.ts';
import { finishBuild } from '../finish.ts';
import { listPagePaths } from '../paths.ts';
import { removePages } from '../remove.ts';
import { readDocsState } from '../state.ts';
import type { Build } from '../types.ts';
import type { BuildResult, PageError } from '../queue/complete.ts';
import { refusedLinks } from './links.ts';
import { planBuild } from './plan.ts';
import { readDocsSite, BuildFailure } from './site.ts';
import { buildFiles } from './site-files.ts';
import { docsPathOf, repositoryAtRef, type SourceAccess } from './source.ts';
import { writePlan } from './write-plan.ts';

export interface BuildContext {
  storage: Storage;
  config: Config;
  logger: Logger;
  source: SourceAccess;
  /** Runs once a build switched readers to a new commit, with its tree still open (docs gaps close here). */
  afterBuild?: (projectId: string, tree: Pick<CommitTree, 'commit' | 'commitOf' | 'contains' | 'carries'>) => Promise<unknown>;
}

/** How a build ended: its result to record, or the error already recorded in docs_state (with what it tried, when it got that far). */
export type BuildOutcome =
  | { ok: true; result: BuildResult }
  | { ok: false; error: string; tried: { commit: string; docsPath: string } | null }
  /** Stopped by its signal (shutdown, lease lost): nothing recorded, another builder takes the request. */
  | { ok: false; interrupted: true };

/**
 * Builds the project's docs index from its repository at its ref: lists the ref's commit tree, and
 * when its commit (or the docs path) differs from the last built one, writes what changed since into
 * a new generation and switches readers to it. Only changed pages are read and parsed; the page
 * parser's worker starts while git answers, so a build of one changed page does not wait for it.
 * Any failure leaves the last good generation answering, with the error in the project's docs
 * state; it throws only when the database fails while that error is recorded.
 */
export async function runBuild(context: BuildContext, projectId: string, signal: AbortSignal): Promise<BuildOutcome> {
  const { storage, config } = context;
  const project = await findProject(storage.db, projectId);
  const docsPath = project ? docsPathOf(project) : '';
  let tree: CommitTree | null = null;
  let build: Build | null = null;
  const analyzer = createPageAnalyzer({
    pageTimeoutMs: config.docsPageTimeoutMs,
    deadline: Number.POSITIVE_INFINITY,
    signal,
    depth: 'parse',
    workers: availableParallelism(),
  });
  analyzer.warm();
  try {
    if (!project?.repository) throw new BuildFailure('The project has no repository; set one to build its docs index.');
    tree = await context.source.openTree(await repositoryAtRef(storage, config, { ...project, repository: project.repository }, signal));
    const state = await readDocsState(storage, projectId);
    const builds = await storage.db.selectFrom('docs_builds').select(['built_docs_path', 'page_errors']).where('project_id', '=', projectId).executeTakeFirst();
    const samePath = (builds?.built_docs_path ?? docsPath) === docsPath;
    if (state.commit === tree.commit && samePath) {
      return { ok: true, result: { commit: tree.commit, docsPath, pageErrors: null } };
    }
    const files = buildFiles(tree, config.docsMaxPageBytes);
    // The site from the tree, the stored pages from the database and the changes from git: none waits for another.
    const [site, stored, changes] = await Promise.all([
      readDocsSite(files, docsPath),
      listPagePaths(storage, projectId),
      state.commit && samePath ? tree.changedSince(state.commit) : Promise.resolve({ everything: true as const }),
    ]);
    build = await beginBuild(storage, projectId, tree.commit);
    const pages = site?.pages ?? [];
    const plan = await planBuild(pages.slice(0, config.docsMaxPages), stored, changes, files);
    const earlier = JSON.parse(builds?.page_errors ?? '[]') as PageError[];
    const errors = [
      ...(await refusedLinks(tree, docsPath)),
      ...(pages.length > config.docsMaxPages ? [{ path: pages[config.docsMaxPages].path, message: tooManyPages(pages.length, config.docsMaxPages) }] : []),
      ...earlier.filter((error) => plan.unread.has(error.path)),
      ...plan.errors,
    ];
    await removePages(storage, build, plan.remove);
    errors.push(...(await writePlan(storage, build, plan, analyzer)));
    await finishBuild(storage, build);
    if (context.afterBuild) {
      const built = tree;
      await context.afterBuild(projectId, built).catch((error: unknown) => context.logger.warn({ err: error, projectId }, 'after-build step failed'));
    }
    context.logger.info(
      { projectId, commit: tree.commit, parsed: plan.parse.length, moved: plan.move.length, removed: plan.remove.length },
      'docs index built',
    );
    return { ok: true, result: { commit: tree.commit, docsPath, pageErrors: errors } };
  } catch (error) {
    if (signal.aborted) {
      if (build) await abandonBuild(storage, build, null);
      return { ok: false, interrupted: true };
    }
    const message = error instanceof Error ? error.message : String(error);
    if (!(error instanceof BuildFailure)) context.logger.warn({ err: error, projectId }, 'docs build failed');
    if (build) await abandonBuild(storage, build, message);
    else await recordFailure(storage, projectId, message);
    return { ok: false, error: message, tried: tree ? { commit: tree.commit, docsPath } : null };
  } finally {
    await Promise.all([tree?.dispose(), analyzer.close()]);
  }
}

function tooManyPages(count: number, limit: number): string {
  return `The site has ${count} pages; a docs build indexes the first ${limit} (QUIRE_DOCS_MAX_PAGES), and this one and those after it are left out.`;
}
