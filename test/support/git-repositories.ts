import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** A small documentation site: what a seeded repository holds unless a test gives other files. */
export const docsFiles: Record<string, string> = {
  'README.md': '# Acme docs\n\nThe source of docs.acme.test.\n',
  'mkdocs.yml': 'site_name: Acme\nnav:\n  - Home: index.md\n  - Guide: guide.md\n',
  'docs/index.md': '# Welcome\n\nAcme keeps your widgets in order.\n',
  'docs/guide.md': '# Guide\n\n## Install\n\nRun `acme install`.\n',
};

/** Runs git for test setup with a fixed identity, independent of the machine's configuration. */
export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: 'Test',
      GIT_AUTHOR_EMAIL: 'test@example.test',
      GIT_COMMITTER_NAME: 'Test',
      GIT_COMMITTER_EMAIL: 'test@example.test',
      GIT_CONFIG_NOSYSTEM: '1',
    },
  });
}

/**
 * Creates a bare repository at `path` whose `main` branch holds `files` in one commit, configured as
 * a hosting service would be: pushes accepted over HTTP, partial clone and fetch by object id allowed.
 * `symlinks` maps link paths to their targets, committed as git symbolic links.
 */
export function createBareRepository(path: string, files: Record<string, string> = docsFiles, symlinks: Record<string, string> = {}): string {
  const branch = 'main';
  const work = mkdtempSync(join(tmpdir(), 'quire-seed-'));
  try {
    git(work, 'init', '--quiet', `--initial-branch=${branch}`);
    for (const [file, content] of Object.entries(files)) {
      mkdirSync(dirname(join(work, file)), { recursive: true });
      writeFileSync(join(work, file), content);
    }
    for (const [link, target] of Object.entries(symlinks)) {
      mkdirSync(dirname(join(work, link)), { recursive: true });
      symlinkSync(target, join(work, link));
    }
    git(work, 'add', '--all');
    git(work, 'commit', '--quiet', '--message', 'Initial docs');
    mkdirSync(dirname(path), { recursive: true });
    git(dirname(path), 'clone', '--quiet', '--bare', work, path);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  for (const [key, value] of [
    ['http.receivepack', 'true'],
    ['uploadpack.allowFilter', 'true'],
    ['uploadpack.allowAnySHA1InWant', 'true'],
  ])
    git(path, 'config', key, value);
  return path;
}

/** Adds a commit to `branch` of a bare repository (as another person pushing would). */
export function commitToBareRepository(path: string, branch: string, files: Record<string, string>, message = 'Change'): void {
  const work = mkdtempSync(join(tmpdir(), 'quire-push-'));
  try {
    git(work, 'clone', '--quiet', '--branch', branch, path, '.');
    for (const [file, content] of Object.entries(files)) {
      mkdirSync(dirname(join(work, file)), { recursive: true });
      writeFileSync(join(work, file), content);
    }
    git(work, 'add', '--all');
    git(work, 'commit', '--quiet', '--message', message);
    git(work, 'push', '--quiet', 'origin', branch);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
