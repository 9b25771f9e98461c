/**
 * The docs benchmark's git repositories: the vendored Temporal documentation as the Docusaurus site it is
 * (its pages as the quality corpus has them, keywords and tags removed, so the queries are not the index's
 * own words), and a plain folder of N pages made from those pages. Each is a bare repository beside the work
 * tree that commits to it, so a later commit changes one page as a docs team would.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { multiplyPages, type CorpusPage } from './docs-corpus.ts';

const fixture = fileURLToPath(new URL('./fixtures/temporal-docs/', import.meta.url));

export interface BenchRepository {
  /** The bare repository a project names. */
  path: string;
  /** The work tree commits are made in and pushed from. */
  work: string;
  pages: number;
}

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=Bench', '-c', 'user.email=bench@example.com', ...args], { cwd, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
}

function writePages(work: string, pages: CorpusPage[]): void {
  for (const page of pages) {
    mkdirSync(dirname(join(work, page.path)), { recursive: true });
    writeFileSync(join(work, page.path), page.markdown);
  }
}

function commitAndClone(work: string, path: string): void {
  git(work, 'add', '--all');
  git(work, 'commit', '--quiet', '--message', 'Docs');
  git(dirname(path), 'clone', '--quiet', '--bare', work, path);
  git(work, 'remote', 'add', 'origin', path);
}

/** The Temporal documentation as a Docusaurus repository (its configuration and sidebars as vendored). */
export function temporalRepository(folder: string, pages: CorpusPage[]): BenchRepository {
  const work = join(folder, 'temporal-work');
  mkdirSync(work, { recursive: true });
  git(work, 'init', '--quiet', '--initial-branch=main');
  for (const file of ['docusaurus.config.js', 'sidebars.js']) cpSync(join(fixture, file), join(work, file));
  writePages(work, pages);
  const path = join(folder, 'temporal.git');
  commitAndClone(work, path);
  return { path, work, pages: pages.length };
}

/** `count` pages made from the real ones, as a plain folder of Markdown (navigation: folders, then files). */
export function multipliedRepository(folder: string, pages: CorpusPage[], count: number): BenchRepository {
  const work = join(folder, `pages-${count}-work`);
  mkdirSync(work, { recursive: true });
  git(work, 'init', '--quiet', '--initial-branch=main');
  writePages(work, multiplyPages(pages, count));
  const path = join(folder, `pages-${count}.git`);
  commitAndClone(work, path);
  return { path, work, pages: count };
}

/** Changes one page of the repository (a sentence added) in one commit, pushed; returns the commit. */
export function changeOnePage(repository: BenchRepository, page: string, round: number): string {
  writeFileSync(join(repository.work, page), `\n\nA sentence added in round ${round} of the benchmark.\n`, { flag: 'a' });
  git(repository.work, 'commit', '--quiet', '--all', '--message', `Change ${page}`);
  git(repository.work, 'push', '--quiet', 'origin', 'main');
  return git(repository.work, 'rev-parse', 'HEAD').trim();
}

/** Time of a plain `git clone` of the repository, the reference a build reads the same files beside. */
export function cloneSeconds(repository: BenchRepository, into: string): number {
  const started = performance.now();
  git(dirname(into), 'clone', '--quiet', repository.path, into);
  return (performance.now() - started) / 1000;
}
