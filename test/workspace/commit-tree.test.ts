import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openCommitTree, type CommitTree } from '../../src/workspace/commit-tree.ts';
import { remoteCommit } from '../../src/workspace/remote-commit.ts';
import { WorkspaceGitError, WorkspacePathError } from '../../src/workspace/types.ts';
import { startGitHttpServer } from '../support/git-http-server.ts';
import { commitToBareRepository, createBareRepository, docsFiles, git } from '../support/git-repositories.ts';

let root: string;
let repositories: string;
let remote: string;
let tree: CommitTree;

const refused = (read: Promise<unknown>, message: RegExp) =>
  expect(read).rejects.toSatisfy((error) => error instanceof WorkspacePathError && message.test(error.message));

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'quire-trees-'));
  repositories = mkdtempSync(join(tmpdir(), 'quire-tree-remotes-'));
  remote = createBareRepository(
    join(repositories, 'docs.git'),
    { ...docsFiles, 'docs/guides/setup.md': '# Setup\n', 'assets/logo.png': '\x89PNG\0\0binary', '.gitignore': 'site/\n' },
    {
      'home.md': 'docs/index.md',
      'docs/tutorials': 'guides',
      'docs/root': '..',
      'docs/chain.md': '../home.md',
      etc: '/etc',
      up: '..',
      'docs/git-data': '../.git',
      'dangling.md': 'docs/missing.md',
      'loop-a.md': 'loop-b.md',
      'loop-b.md': 'loop-a.md',
    },
  );
  tree = await openCommitTree({ repository: remote, ref: 'main', root });
});
afterAll(async () => {
  await tree.dispose();
  rmSync(root, { recursive: true, force: true });
  rmSync(repositories, { recursive: true, force: true });
});

describe('a commit read from git objects', () => {
  it('gives the commit, the files and their texts without checking anything out', async () => {
    expect(tree).toMatchObject({ ref: 'main', commit: git(remote, 'rev-parse', 'main').trim() });
    expect(await tree.files.read('docs/index.md')).toBe(docsFiles['docs/index.md']);
    expect(await tree.files.read('./docs//guide.md')).toBe(docsFiles['docs/guide.md']);
    // Many reads at once come back in order through the one reader.
    const paths = ['README.md', 'mkdocs.yml', 'docs/index.md', 'docs/guide.md'];
    expect(await Promise.all(paths.flatMap((path) => [path, path]).map((path) => tree.files.read(path)))).toEqual(
      paths.flatMap((path) => [docsFiles[path], docsFiles[path]]),
    );
    expect(readdirSync(root).sort()).toEqual(['mirrors']);
  });

  it('follows links that stay inside and lists what they lead to', async () => {
    expect(await tree.files.read('home.md')).toBe(docsFiles['docs/index.md']);
    expect(await tree.files.read('docs/chain.md')).toBe(docsFiles['docs/index.md']);
    expect(await tree.files.read('docs/tutorials/setup.md')).toBe('# Setup\n');
    expect(await tree.files.read('docs/root/README.md')).toBe(docsFiles['README.md']);
    expect(tree.blobId('home.md')).toBe(tree.blobId('docs/index.md'));
    expect(tree.blobId('home.md')).toBe(git(remote, 'rev-parse', 'main:docs/index.md').trim());
    const listed = await tree.files.list();
    expect(listed.filter((entry) => entry.type === 'file').map((entry) => entry.path)).toEqual([
      '.gitignore',
      'README.md',
      'assets/logo.png',
      'docs/chain.md',
      'docs/guide.md',
      'docs/guides/setup.md',
      'docs/index.md',
      'home.md',
      'mkdocs.yml',
    ]);
    expect(listed.find((entry) => entry.path === 'home.md')).toEqual({ path: 'home.md', type: 'file', size: docsFiles['docs/index.md'].length });
    expect(listed.filter((entry) => entry.type === 'directory').map((entry) => entry.path)).toEqual([
      'assets',
      'docs',
      'docs/guides',
      'docs/root',
      'docs/tutorials',
    ]);
    expect((await tree.symbolicLinks()).sort()).toEqual(
      ['dangling.md', 'docs/chain.md', 'docs/git-data', 'docs/root', 'docs/tutorials', 'etc', 'home.md', 'loop-a.md', 'loop-b.md', 'up'].sort(),
    );
  });

  it('refuses links leaving the tree, into .git, dangling or looping, and paths a snapshot refuses', async () => {
    await refused(tree.files.read('etc/passwd'), /passes through the symbolic link "etc", which points outside the repository/);
    await refused(tree.files.read('up/docs.git/config'), /symbolic link "up"/);
    await refused(tree.files.read('docs/git-data/config'), /symbolic link "docs\/git-data"/);
    await refused(tree.files.read('dangling.md'), /"dangling.md" is a symbolic link/);
    await refused(tree.files.read('loop-a.md'), /"loop-a.md" is a symbolic link/);
    await refused(tree.files.read('../docs.git/config'), /uses "\.\."/);
    await refused(tree.files.read('/etc/passwd'), /absolute path/);
    await refused(tree.files.read('.git/config'), /inside \.git/);
    await refused(tree.files.read('a\0b'), /NUL/);
    await refused(tree.files.read('docs/nothing.md'), /"docs\/nothing.md" does not exist/);
    await refused(tree.files.read('docs/index.md/more'), /does not exist/);
    await refused(tree.files.read('docs'), /is a folder/);
    await refused(tree.files.read('assets/logo.png'), /is a binary file/);
    for (const path of ['etc', 'up', 'dangling.md', 'loop-a.md', 'docs/git-data']) expect(tree.blobId(path)).toBeNull();
  });

  it('says which files changed since an earlier commit, and whether it contains one', async () => {
    const first = tree.commit;
    commitToBareRepository(remote, 'main', { 'docs/guide.md': '# Guide\n\nRewritten.\n', 'docs/new.md': '# New\n' });
    const later = await openCommitTree({ repository: remote, ref: 'main', root });
    try {
      expect(await later.files.read('docs/guide.md')).toBe('# Guide\n\nRewritten.\n');
      expect(await later.changedSince(first)).toEqual({
        everything: false,
        files: [
          { path: 'docs/guide.md', status: 'modified' },
          { path: 'docs/new.md', status: 'added' },
        ],
      });
      expect(await later.contains(first)).toBe(true);
      expect(await tree.contains(later.commit)).toBe(false);
      expect(await later.changedSince('f'.repeat(40))).toEqual({ everything: true });
    } finally {
      await later.dispose();
    }
  });

  it('a missing ref fails with a git error that names it', async () => {
    await expect(openCommitTree({ repository: remote, ref: 'no-such-branch', root })).rejects.toSatisfy(
      (error) => error instanceof WorkspaceGitError && error.message.includes('"no-such-branch" does not exist'),
    );
  });

  it('over HTTP, a partial mirror fetches the missing blobs in one request, not one per file', async () => {
    const server = await startGitHttpServer();
    const files = Object.fromEntries(Array.from({ length: 40 }, (_, index) => [`docs/page-${index}.md`, `# Page ${index}\n`]));
    try {
      const repository = server.createRepository('partial', files);
      const remoteTree = await openCommitTree({ repository, ref: 'main', root });
      try {
        const fetches = server.requests.filter((request) => request.service === 'git-upload-pack' && request.method === 'POST').length;
        expect(await Promise.all(Object.keys(files).map((path) => remoteTree.files.read(path)))).toEqual(Object.values(files));
        // The first fetch brings commits and trees (blob:none), the second the blobs; reading them asks for nothing more.
        expect(server.requests.filter((request) => request.service === 'git-upload-pack' && request.method === 'POST')).toHaveLength(fetches);
        expect(fetches).toBeLessThanOrEqual(3);
      } finally {
        await remoteTree.dispose();
      }
    } finally {
      await server.close();
    }
  });
  it('takes the default branch when no ref is given, and tags and commit ids as refs; the remote answers without a fetch', async () => {
    const bare = createBareRepository(join(repositories, 'refs.git'));
    const head = git(bare, 'rev-parse', 'main').trim();
    git(bare, 'tag', '--annotate', 'v1', '--message', 'First release', 'main');
    commitToBareRepository(bare, 'main', { 'docs/guide.md': '# Guide\n\nRewritten.\n' });
    const later = git(bare, 'rev-parse', 'main').trim();
    expect(await remoteCommit({ repository: bare, ref: null, root })).toBe(later);
    expect(await remoteCommit({ repository: `file://${bare}`, ref: 'main', root })).toBe(later);
    expect(await remoteCommit({ repository: bare, ref: 'v1', root })).toBe(head);
    expect(await remoteCommit({ repository: bare, ref: 'no-such-branch', root })).toBeNull();
    for (const [ref, expected] of [
      [null, { ref: 'main', commit: later }],
      ['v1', { ref: 'v1', commit: head }],
      [head, { ref: head, commit: head }],
    ] as const) {
      const opened = await openCommitTree({ repository: bare, ref, root });
      try {
        expect(opened, String(ref)).toMatchObject(expected);
      } finally {
        await opened.dispose();
      }
    }
  });

  it('says whether it carries a branch’s change: merged, squashed, not merged, or changed again since', async () => {
    const bare = createBareRepository(join(repositories, 'squash.git'));
    git(bare, 'branch', 'fix', 'main');
    git(bare, 'branch', 'other', 'main');
    commitToBareRepository(bare, 'fix', { 'docs/limits.md': '# Limits\n\n100 a minute.\n', 'mkdocs.yml': 'site_name: Acme\n' }, 'Fix');
    commitToBareRepository(bare, 'other', { 'docs/other.md': '# Other\n' }, 'Other');
    const fix = git(bare, 'rev-parse', 'fix').trim();
    const other = git(bare, 'rev-parse', 'other').trim();
    const trees: CommitTree[] = [];
    const open = async () => {
      const opened = await openCommitTree({ repository: bare, ref: 'main', root });
      trees.push(opened);
      return opened;
    };
    try {
      expect(await (await open()).carries(fix)).toBe(false);
      // A squash merge: the same files, in a new commit on main that does not contain the branch's.
      commitToBareRepository(bare, 'main', { 'docs/limits.md': '# Limits\n\n100 a minute.\n', 'mkdocs.yml': 'site_name: Acme\n' }, 'Fix (#1)');
      const squashed = await open();
      expect(await squashed.contains(fix)).toBe(false);
      expect(await squashed.carries(fix)).toBe(true);
      expect(await squashed.carries(other)).toBe(false);
      expect(await squashed.carries(squashed.commit)).toBe(false);
      expect(await squashed.carries('0123456789abcdef0123456789abcdef01234567')).toBe(false);
      expect(await squashed.carries('--output=/tmp/x')).toBe(false);
      expect(await squashed.changedSince('--output=/tmp/x')).toEqual({ everything: true });
      // One of the files changed again since: the change as the branch made it is no longer there.
      commitToBareRepository(bare, 'main', { 'docs/limits.md': '# Limits\n\n200 a minute.\n' }, 'Later');
      expect(await (await open()).carries(fix)).toBe(false);
    } finally {
      for (const opened of trees) await opened.dispose();
    }
  });

  it('fetches a private repository over HTTP with credentials kept out of every file, and fails without them', async () => {
    const credentials = { username: 'quire-test', password: 'sup3r-secret-tree-token' };
    const server = await startGitHttpServer({ ...credentials, privateFetch: true });
    const privateRoot = mkdtempSync(join(tmpdir(), 'quire-private-trees-'));
    try {
      const repository = server.createRepository('private');
      const opened = await openCommitTree({ repository, ref: 'main', root: privateRoot, credentials });
      try {
        expect(await opened.files.read('README.md')).toContain('Acme docs');
        expect(await remoteCommit({ repository, ref: 'main', root: privateRoot, credentials })).toBe(opened.commit);
      } finally {
        await opened.dispose();
      }
      const written = readdirSync(privateRoot, { recursive: true, withFileTypes: true })
        .filter((entry) => entry.isFile() && statSync(join(entry.parentPath, entry.name)).size < 1_000_000)
        .map((entry) => readFileSync(join(entry.parentPath, entry.name)).toString('latin1'));
      expect(written.length).toBeGreaterThan(0);
      expect(written.join('\n')).not.toContain(credentials.password);
      await expect(openCommitTree({ repository, ref: 'main', root: privateRoot })).rejects.toBeInstanceOf(WorkspaceGitError);
    } finally {
      rmSync(privateRoot, { recursive: true, force: true });
      await server.close();
    }
  });
});
