import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import pino from 'pino';
import { runBuild, type BuildContext, type BuildOutcome } from '../../src/docs/index/build/run.ts';
import { claimBuild } from '../../src/docs/index/queue/claim.ts';
import { completeBuild } from '../../src/docs/index/queue/complete.ts';
import { enqueueBuild } from '../../src/docs/index/queue/enqueue.ts';
import { failBuild } from '../../src/docs/index/queue/fail.ts';
import { gitSource } from '../../src/docs/index/build/source.ts';
import type { Config } from '../../src/config/config.ts';
import type { Storage } from '../../src/storage/dialect.ts';
import { git } from './git-repositories.ts';

/** What a commit changes: files written (text or bytes), files removed, symbolic links added. */
export interface RepositoryChange {
  write?: Record<string, string | Buffer>;
  remove?: string[];
  links?: Record<string, string>;
}

function apply(work: string, change: RepositoryChange): void {
  for (const [file, content] of Object.entries(change.write ?? {})) {
    mkdirSync(dirname(join(work, file)), { recursive: true });
    writeFileSync(join(work, file), content);
  }
  for (const [link, target] of Object.entries(change.links ?? {})) {
    mkdirSync(dirname(join(work, link)), { recursive: true });
    symlinkSync(target, join(work, link));
  }
  for (const file of change.remove ?? []) git(work, 'rm', '--quiet', file);
  git(work, 'add', '--all');
  git(work, 'commit', '--quiet', '--message', 'Change docs');
}

/** A bare repository at `path` whose `main` holds `change` in one commit; returns the commit. */
export function docsRepository(path: string, change: RepositoryChange): string {
  const work = mkdtempSync(join(tmpdir(), 'quire-docs-seed-'));
  try {
    git(work, 'init', '--quiet', '--initial-branch=main');
    apply(work, change);
    git(dirname(path), 'clone', '--quiet', '--bare', work, path);
    return git(work, 'rev-parse', 'HEAD').trim();
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** Pushes a commit making `change` to `main` of the bare repository at `path`; returns the commit. */
export function pushDocsChange(path: string, change: RepositoryChange): string {
  const work = mkdtempSync(join(tmpdir(), 'quire-docs-push-'));
  try {
    git(work, 'clone', '--quiet', '--branch', 'main', path, '.');
    apply(work, change);
    git(work, 'push', '--quiet', 'origin', 'main');
    return git(work, 'rev-parse', 'HEAD').trim();
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** What `runBuild` needs, with a silent log and real git. */
export function buildContext(storage: Storage, config: Config): BuildContext {
  return { storage, config, logger: pino({ level: 'silent' }), source: gitSource };
}

/** One build as a builder runs it: requested, claimed, run and recorded. */
export async function buildThroughQueue(context: BuildContext, projectId: string): Promise<BuildOutcome> {
  await enqueueBuild(context.storage, projectId);
  const claimed = await claimBuild(context.storage, 'wrk_test', { leaseMs: 60_000, maxAttempts: 3 });
  if (claimed?.projectId !== projectId) throw new Error(`expected to claim the build of ${projectId}, got ${JSON.stringify(claimed)}`);
  const outcome = await runBuild(context, projectId, new AbortController().signal);
  if (outcome.ok) await completeBuild(context.storage, claimed, 'wrk_test', outcome.result);
  else if (!('interrupted' in outcome)) await failBuild(context.storage, claimed, 'wrk_test', outcome.tried);
  return outcome;
}
