import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { call, hostileRepository, type HostileRepository } from './tool-harness.ts';

describe('agent tools stay inside the workspace', () => {
  let repository: HostileRepository;
  beforeEach(() => {
    repository = hostileRepository();
  });
  afterEach(() => {
    rmSync(repository.dir, { recursive: true, force: true });
    rmSync(repository.outside, { recursive: true, force: true });
  });

  const escapes = [
    '../secret.txt',
    '/etc/passwd',
    'etc-link/passwd',
    'docs/passwd.md',
    'up/etc/passwd',
    '.git/config',
    'git-link/config',
    'docs/config.md',
    'outside-link/secret.txt',
    'docs/../../x.md',
    '.GIT/config',
  ];

  it.each(escapes)('refuses to read %s with an error the model can act on', async (path) => {
    const result = await call(repository.tools, 'read_file', { path });
    expect(result).toMatch(/^Error: /);
    expect(result).not.toContain('root:');
    expect(result).not.toContain('outside secret');
    expect(result).not.toContain('repositoryformatversion');
    expect(result).not.toContain(repository.dir);
  });

  it.each(escapes)('refuses to write, edit, move or delete through %s', async (path) => {
    for (const [name, input] of [
      ['write_file', { path, content: 'pwned' }],
      ['delete_file', { path }],
      ['move_file', { from: path, to: 'docs/moved.md' }],
      ['move_file', { from: 'docs/index.md', to: path }],
      ['edit_file', { path, old_string: 'a', new_string: 'b' }],
    ] as const) {
      expect(await call(repository.tools, name, input), `${name} ${path}`).toMatch(/^Error: /);
    }
    expect(readFileSync(join(repository.outside, 'secret.txt'), 'utf8')).toBe('outside secret\n');
    expect(readFileSync(join(repository.dir, '.git/config'), 'utf8')).toContain('repositoryformatversion');
    expect(readFileSync(join(repository.dir, 'docs/index.md'), 'utf8')).toBe('# Acme\n\nWelcome to Acme.\n');
    expect(existsSync(join(repository.outside, 'moved.md'))).toBe(false);
  });

  it('lists and searches without .git or what links outside point to', async () => {
    const listing = await call(repository.tools, 'list_files', {});
    expect(listing).toContain('docs/index.md');
    expect(listing).not.toMatch(/\.git\/|repositoryformatversion|secret\.txt|passwd\.md|etc-link\//);
    const matches = await call(repository.tools, 'search', { pattern: 'secret|root:|repositoryformatversion' });
    expect(matches).toBe('No matches for secret|root:|repositoryformatversion.');
    expect(await call(repository.tools, 'search', { pattern: 'Welcome' })).toContain('docs/index.md:3: Welcome to Acme.');
  });

  it('follows links that stay inside the repository', async () => {
    expect(await call(repository.tools, 'read_file', { path: 'docs/home.md' })).toContain('Welcome to Acme.');
  });

  it('refuses binary files for reading, editing and overwriting', async () => {
    expect(await call(repository.tools, 'read_file', { path: 'docs/logo.png' })).toMatch(/^Error: .*binary/);
    expect(await call(repository.tools, 'edit_file', { path: 'docs/logo.png', old_string: 'PNG', new_string: 'JPG' })).toMatch(/^Error: /);
    expect(await call(repository.tools, 'write_file', { path: 'docs/logo.png', content: 'text' })).toMatch(/^Error: .*binary/);
    expect(readFileSync(join(repository.dir, 'docs/logo.png'))[4]).toBe(0);
  });
});
