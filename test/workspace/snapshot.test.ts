import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FileAccessError } from '../../src/lib/readable-files.ts';
import { remoteCommit } from '../../src/workspace/remote-commit.ts';
import { leasePath } from '../../src/workspace/snapshot-lease.ts';
import { openSnapshot, type Snapshot } from '../../src/workspace/snapshot.ts';
import { sweepWorkspaces } from '../../src/workspace/sweep.ts';
import { WorkspaceGitError, WorkspacePathError } from '../../src/workspace/types.ts';
import { commitToBareRepository, createBareRepository, git } from '../support/git-repositories.ts';
import { startGitHttpServer } from '../support/git-http-server.ts';

let root: string;
let repositories: string;
const opened: Snapshot[] = [];

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'quire-snapshots-'));
  repositories = mkdtempSync(join(tmpdir(), 'quire-snapshot-remotes-'));
});
afterEach(async () => {
  for (const snapshot of opened.splice(0)) await snapshot.dispose();
  rmSync(root, { recursive: true, force: true });
  rmSync(repositories, { recursive: true, force: true });
});

async function snapshot(repository: string, ref: string | null = 'main'): Promise<Snapshot> {
  const taken = await openSnapshot({ repository, ref, root });
  opened.push(taken);
  return taken;
}

function worktrees(): string {
  const mirrors = join(root, 'mirrors');
  const mirror = readdirSync(mirrors).find((name) => !name.endsWith('.lock'))!;
  return git(join(mirrors, mirror), 'worktree', 'list');
}

describe('read-only snapshots of a repository', () => {
  it('gives the files and the commit of a ref, the default branch when none is given', async () => {
    const remote = createBareRepository(join(repositories, 'docs.git'));
    const head = git(remote, 'rev-parse', 'main').trim();
    const taken = await snapshot(remote, null);
    expect(taken).toMatchObject({ ref: 'main', commit: head });
    expect(await taken.files.read('docs/index.md')).toBe('# Welcome\n\nAcme keeps your widgets in order.\n');
    expect((await taken.files.list('docs')).map((entry) => entry.path)).toEqual(['docs/guide.md', 'docs/index.md']);
    expect(await taken.files.search('acme install')).toEqual([{ path: 'docs/guide.md', line: 5, text: 'Run `acme install`.' }]);
    expect('write' in taken.files).toBe(false);
    expect(git(taken.dir, 'status', '--porcelain')).toBe('');
    expect(await remoteCommit({ repository: remote, ref: null, root })).toBe(head);
    expect(await remoteCommit({ repository: `file://${remote}`, ref: 'main', root })).toBe(head);
    expect(await remoteCommit({ repository: remote, ref: 'no-such-branch', root })).toBeNull();
    await expect(snapshot(remote, 'no-such-branch')).rejects.toBeInstanceOf(WorkspaceGitError);
  });

  it('lists its symbolic links, while its files leave out and refuse those leading out of the repository', async () => {
    const remote = createBareRepository(
      join(repositories, 'links.git'),
      { 'docs/index.md': '# Home\n' },
      {
        'docs/escape.md': '/etc/hostname',
        'docs/alias.md': 'index.md',
      },
    );
    const taken = await snapshot(remote);
    expect((await taken.symbolicLinks()).sort()).toEqual(['docs/alias.md', 'docs/escape.md']);
    expect((await taken.files.list('docs')).map((entry) => entry.path)).toEqual(['docs/alias.md', 'docs/index.md']);
    expect(await taken.files.read('docs/alias.md')).toBe('# Home\n');
    await expect(taken.files.read('docs/escape.md')).rejects.toBeInstanceOf(WorkspacePathError);
  });

  it('lists what a later commit changed, and everything when the earlier commit is unknown', async () => {
    const remote = createBareRepository(join(repositories, 'moving.git'));
    const first = await snapshot(remote);
    git(remote, 'tag', '--annotate', 'v1', '--message', 'First release', 'main');
    commitToBareRepository(remote, 'main', { 'docs/guide.md': '# Guide\n\nRewritten.\n', 'docs/new.md': '# New\n' });
    const later = git(remote, 'rev-parse', 'main').trim();
    expect(await remoteCommit({ repository: remote, ref: 'main', root })).toBe(later);
    expect(await remoteCommit({ repository: remote, ref: 'v1', root })).toBe(first.commit);

    const second = await snapshot(remote);
    expect(second.commit).toBe(later);
    expect(await second.changedSince(first.commit)).toEqual({
      everything: false,
      files: [
        { path: 'docs/guide.md', status: 'modified' },
        { path: 'docs/new.md', status: 'added' },
      ],
    });
    expect(await second.changedSince(later)).toEqual({ everything: false, files: [] });
    expect(await second.changedSince('0123456789abcdef0123456789abcdef01234567')).toEqual({ everything: true });
    expect(await second.changedSince('--output=/tmp/x')).toEqual({ everything: true });
    // Each snapshot keeps its own commit's files.
    expect(await first.files.read('docs/guide.md')).toContain('Run `acme install`.');
    expect(await second.files.read('docs/guide.md')).toBe('# Guide\n\nRewritten.\n');
    expect((await snapshot(remote, 'v1')).commit).toBe(first.commit);
  });

  it('says whether it carries a branch’s change: merged, squashed, not merged, or changed again since', async () => {
    const remote = createBareRepository(join(repositories, 'squash.git'));
    git(remote, 'branch', 'fix', 'main');
    git(remote, 'branch', 'other', 'main');
    commitToBareRepository(remote, 'fix', { 'docs/limits.md': '# Limits\n\n100 a minute.\n', 'mkdocs.yml': 'site_name: Acme\n' }, 'Fix');
    commitToBareRepository(remote, 'other', { 'docs/other.md': '# Other\n' }, 'Other');
    const fix = git(remote, 'rev-parse', 'fix').trim();
    const other = git(remote, 'rev-parse', 'other').trim();
    const before = await snapshot(remote);
    expect(await before.carries(fix)).toBe(false);
    // A squash merge: the same files, in a new commit on main that does not contain the branch's.
    commitToBareRepository(remote, 'main', { 'docs/limits.md': '# Limits\n\n100 a minute.\n', 'mkdocs.yml': 'site_name: Acme\n' }, 'Fix (#1)');
    const squashed = await snapshot(remote);
    expect(await squashed.contains(fix)).toBe(false);
    expect(await squashed.carries(fix)).toBe(true);
    expect(await squashed.carries(other)).toBe(false);
    expect(await squashed.carries(squashed.commit)).toBe(false);
    expect(await squashed.carries('0123456789abcdef0123456789abcdef01234567')).toBe(false);
    expect(await squashed.carries('--output=/tmp/x')).toBe(false);
    // One of the files changed again since: the change as the branch made it is no longer there.
    commitToBareRepository(remote, 'main', { 'docs/limits.md': '# Limits\n\n200 a minute.\n' }, 'Later');
    expect(await (await snapshot(remote)).carries(fix)).toBe(false);
  });

  it('refuses paths that leave the snapshot: links pointing outside, "..", absolute paths and .git', async () => {
    const remote = createBareRepository(
      join(repositories, 'hostile.git'),
      { 'README.md': '# Hostile\n' },
      { etc: '/etc', up: '..', 'docs/passwd.md': '/etc/passwd' },
    );
    const taken = await snapshot(remote);
    for (const path of ['etc/passwd', 'docs/passwd.md', 'up/mirrors', '../README.md', '/etc/passwd', '.git/HEAD']) {
      const refused = await taken.files.read(path).catch((error: unknown) => error);
      expect(refused, path).toBeInstanceOf(WorkspacePathError);
      expect(refused, path).toBeInstanceOf(FileAccessError);
    }
    expect((await taken.files.list()).map((entry) => entry.path)).toEqual(['README.md', 'docs']);
  });

  it('is removed by the sweeper once its lease lapses, never while it is held', async () => {
    const remote = createBareRepository(join(repositories, 'swept.git'));
    const abandoned = await snapshot(remote);
    const held = await snapshot(remote);
    expect(worktrees()).toContain(abandoned.dir);
    // Its process "died": the lease was last renewed an hour ago.
    const anHourAgo = new Date(Date.now() - 60 * 60_000);
    utimesSync(leasePath(abandoned.dir), anHourAgo, anHourAgo);

    expect(await sweepWorkspaces(root, async () => false)).toBe(1);
    expect(existsSync(abandoned.dir)).toBe(false);
    expect(existsSync(leasePath(abandoned.dir))).toBe(false);
    expect(worktrees()).not.toContain(abandoned.dir);
    expect(await held.files.read('README.md')).toContain('Acme docs');
    expect(await sweepWorkspaces(root, async () => false)).toBe(0);

    await held.dispose();
    expect(existsSync(held.dir)).toBe(false);
    expect(existsSync(leasePath(held.dir))).toBe(false);
    expect(readdirSync(join(root, 'snapshots'))).toEqual([]);
  });

  it('fetches over HTTP with credentials kept out of every file', async () => {
    const credentials = { username: 'quire-test', password: 'sup3r-secret-snapshot-token' };
    const server = await startGitHttpServer({ ...credentials, privateFetch: true });
    try {
      const repository = server.createRepository('private');
      const taken = await openSnapshot({ repository, ref: 'main', root, credentials });
      opened.push(taken);
      expect(await taken.files.read('README.md')).toContain('Acme docs');
      expect(await remoteCommit({ repository, ref: 'main', root, credentials })).toBe(taken.commit);
      const written = readdirSync(root, { recursive: true, withFileTypes: true })
        .filter((entry) => entry.isFile() && statSync(join(entry.parentPath, entry.name)).size < 1_000_000)
        .map((entry) => readFileSync(join(entry.parentPath, entry.name)).toString('latin1'));
      expect(written.join('\n')).not.toContain(credentials.password);
      await expect(openSnapshot({ repository, ref: 'main', root })).rejects.toBeInstanceOf(WorkspaceGitError);
    } finally {
      await server.close();
    }
  });
});
