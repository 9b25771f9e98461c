import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createWorkspaceFiles } from '../../src/workspace/files.ts';
import { maxSearchMatches, searchFilesWithTimeout } from '../../src/workspace/search.ts';
import { WorkspacePathError, type WorkspaceFiles } from '../../src/workspace/types.ts';

let sandbox: string;
let dir: string;
let outside: string;
let files: WorkspaceFiles;

beforeEach(() => {
  sandbox = mkdtempSync(join(tmpdir(), 'quire-files-'));
  dir = join(sandbox, 'workspace');
  outside = join(sandbox, 'outside');
  mkdirSync(join(dir, 'docs/guides'), { recursive: true });
  mkdirSync(join(dir, '.git'));
  mkdirSync(outside);
  writeFileSync(join(outside, 'secret.txt'), 'outside secret\n');
  writeFileSync(join(dir, '.git/config'), '[core]\n');
  writeFileSync(join(dir, 'README.md'), '# Readme\n');
  writeFileSync(join(dir, 'docs/index.md'), '# Welcome\nInstall with acme(1).\n');
  writeFileSync(join(dir, 'docs/guides/setup.md'), '# Setup\nRun install.\n');
  writeFileSync(join(dir, 'docs/logo.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 1]));
  files = createWorkspaceFiles(dir);
});

afterEach(() => rmSync(sandbox, { recursive: true, force: true }));

async function refused(promise: Promise<unknown>, message: RegExp) {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(WorkspacePathError);
  expect((error as Error).message).toMatch(message);
}

describe('workspace files', () => {
  it('reads, writes into new folders, moves and removes files', async () => {
    expect(await files.read('docs/index.md')).toContain('Welcome');
    await files.write('docs/new/deep/page.md', '# Page\n');
    expect(readFileSync(join(dir, 'docs/new/deep/page.md'), 'utf8')).toBe('# Page\n');
    await files.move('docs/new/deep/page.md', 'docs/moved/page.md');
    expect(existsSync(join(dir, 'docs/new/deep/page.md'))).toBe(false);
    expect(await files.read('./docs//moved/page.md')).toBe('# Page\n');
    await files.remove('docs/moved');
    expect(existsSync(join(dir, 'docs/moved'))).toBe(false);
  });

  it('lists files with and without a glob pattern, never .git', async () => {
    const all = (await files.list()).map((entry) => entry.path);
    expect(all).toEqual(['README.md', 'docs', 'docs/guides', 'docs/guides/setup.md', 'docs/index.md', 'docs/logo.png']);
    expect((await files.list('', '*.md')).map((entry) => entry.path)).toEqual(['README.md', 'docs/guides/setup.md', 'docs/index.md']);
    expect((await files.list('docs', 'docs/*/*.md')).map((entry) => entry.path)).toEqual(['docs/guides/setup.md']);
    expect((await files.list('', '**/{index,setup}.md')).map((entry) => entry.path)).toEqual(['docs/guides/setup.md', 'docs/index.md']);
    expect(await files.list('docs/index.md')).toEqual([{ path: 'docs/index.md', type: 'file', size: 32 }]);
  });

  it('refuses paths that leave the workspace or enter .git', async () => {
    await refused(files.read('../outside/secret.txt'), /\.\./);
    await refused(files.read('docs/../../outside/secret.txt'), /\.\./);
    await refused(files.read(join(outside, 'secret.txt')), /absolute path/);
    await refused(files.read('/etc/passwd'), /absolute path/);
    await refused(files.read('.git/config'), /\.git/);
    await refused(files.write('.git/hooks/pre-commit', 'echo'), /\.git/);
    await refused(files.write('docs/.GIT/config', 'x'), /\.git/);
    await refused(files.remove('.git'), /\.git/);
    await refused(files.move('docs/index.md', '../stolen.md'), /\.\./);
    await refused(files.remove(''), /path of a file/);
    expect(existsSync(join(dir, '.git/hooks'))).toBe(false);
  });

  it('refuses symbolic links that point outside, up, into .git or nowhere', async () => {
    symlinkSync('/etc', join(dir, 'etc'));
    symlinkSync('..', join(dir, 'up'));
    symlinkSync('../.git', join(dir, 'docs/git-data'));
    symlinkSync('.git/config', join(dir, 'config-link'));
    symlinkSync(outside, join(dir, 'docs/shared'));
    symlinkSync(join(outside, 'missing.md'), join(dir, 'dangling.md'));
    await refused(files.read('etc/passwd'), /symbolic link "etc"/);
    await refused(files.read('up/outside/secret.txt'), /symbolic link "up"/);
    await refused(files.read('docs/git-data/config'), /symbolic link/);
    await refused(files.read('config-link'), /is a symbolic link/);
    await refused(files.write('docs/shared/new.md', 'x'), /symbolic link/);
    await refused(files.write('dangling.md', 'x'), /symbolic link/);
    await refused(files.remove('docs/shared/secret.txt'), /symbolic link/);
    expect(existsSync(join(outside, 'new.md'))).toBe(false);
    expect(existsSync(join(outside, 'missing.md'))).toBe(false);
    expect(existsSync(join(outside, 'secret.txt'))).toBe(true);
    const listed = (await files.list()).map((entry) => entry.path);
    expect(listed).not.toContain('etc');
    expect(listed).not.toContain('docs/shared');
    expect(listed.some((path) => path.includes('secret') || path.includes('passwd'))).toBe(false);
    await refused(files.search('secret', 'docs/shared'), /symbolic link/);
  });

  it('follows symbolic links that stay inside the workspace', async () => {
    symlinkSync('docs/index.md', join(dir, 'home.md'));
    symlinkSync('guides', join(dir, 'docs/tutorials'));
    symlinkSync('..', join(dir, 'docs/root'));
    expect(await files.read('home.md')).toContain('Welcome');
    expect(await files.read('docs/tutorials/setup.md')).toContain('Setup');
    expect(await files.read('docs/root/README.md')).toBe('# Readme\n');
  });

  it('reports binary files, folders and missing files in words the model can act on', async () => {
    await refused(files.read('docs/logo.png'), /binary file/);
    await refused(files.read('docs'), /folder; use list_files/);
    await refused(files.read('docs/missing.md'), /does not exist/);
    await refused(files.write('docs', 'x'), /is a folder/);
    await refused(files.move('README.md', 'docs/index.md'), /already exists/);
  });

  it('searches text files by regular expression, and explains a pattern that is not one', async () => {
    expect(await files.search('^# (Welcome|Setup)')).toEqual([
      { path: 'docs/guides/setup.md', line: 1, text: '# Setup' },
      { path: 'docs/index.md', line: 1, text: '# Welcome' },
    ]);
    expect(await files.search('acme\\(')).toEqual([{ path: 'docs/index.md', line: 2, text: 'Install with acme(1).' }]);
    await refused(files.search('acme('), /^"acme\(" is not a valid regular expression \(missing closing \): `acme\(`\)\. .*Escape special characters/);
    expect((await files.search('nstall', 'docs/guides')).map((match) => match.path)).toEqual(['docs/guides/setup.md']);
    expect(await files.search('PNG')).toEqual([]);
  });

  it('matches lines, never text across lines, in files tested whole first', async () => {
    writeFileSync(join(dir, 'lines.md'), 'first line\n  indented Setup\r\nlast\n');
    expect(await files.search('^  indented')).toEqual([{ path: 'lines.md', line: 2, text: '  indented Setup\r' }]);
    expect(await files.search('^last$')).toEqual([{ path: 'lines.md', line: 3, text: 'last' }]);
    expect(await files.search('Setup\\s$')).toEqual([{ path: 'lines.md', line: 2, text: '  indented Setup\r' }]);
    // The whole file holds these; no line does.
    expect(await files.search('first line\\n  indented')).toEqual([]);
    expect(await files.search('line[^x]+indented')).toEqual([]);
  });

  it('stops a search that runs too long, and the process keeps running meanwhile', async () => {
    // RE2 keeps every pattern linear; the time limit is the second line of defence, here against sheer volume.
    writeFileSync(join(dir, 'large.md'), `${'ab'.repeat(999)}\n`.repeat(500));
    // Every copy holds `b` then a line end then `a`, so each is split and each of its lines tested: no line holds them.
    const copies = Array.from({ length: 2000 }, () => ({ path: 'large.md', type: 'file' as const, size: 1_000_000 }));
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 20);
    try {
      const search = searchFilesWithTimeout(dir, copies, 'b\\na', 500);
      await expect(search).rejects.toThrow(WorkspacePathError);
      await expect(search).rejects.toThrow(/took longer than 0.5 s and was stopped; search a smaller folder/);
    } finally {
      clearInterval(ticker);
    }
    expect(ticks).toBeGreaterThan(5);
    // The stopped worker is not reused: the next searches, sharing the workers kept between searches, answer.
    const answers = await Promise.all(
      Array.from({ length: 4 }, () => searchFilesWithTimeout(dir, [{ path: 'docs/index.md', type: 'file', size: 40 }], 'acme')),
    );
    expect(answers).toEqual(Array.from({ length: 4 }, () => [{ path: 'docs/index.md', line: 2, text: 'Install with acme(1).' }]));
    expect(await searchFilesWithTimeout(dir, [{ path: 'docs/index.md', type: 'file', size: 40 }], 'Welcome')).toEqual([
      { path: 'docs/index.md', line: 1, text: '# Welcome' },
    ]);
  });

  it('caps search results', async () => {
    writeFileSync(join(dir, 'many.md'), 'match\n'.repeat(maxSearchMatches + 50));
    expect(await files.search('match')).toHaveLength(maxSearchMatches);
  });
});
