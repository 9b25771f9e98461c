import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const main = resolve('src/cli/main.ts');
const project = mkdtempSync(join(tmpdir(), 'quire-root-'));
// A project that installs Quire, with a docs folder to run the CLI from.
writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'handbook', devDependencies: { quire: '^0.1.0' } }));
mkdirSync(join(project, 'docs', 'guides'), { recursive: true });
const { QUIRE_DATA_DIR: _dataDir, DATABASE_URL: _databaseUrl, ...inherited } = process.env;
const env = { ...inherited, LOG_LEVEL: 'silent' };

function quire(cwd: string, args: string[], extra: Record<string, string> = {}) {
  return run(process.execPath, [main, ...args], { cwd, env: { ...env, ...extra } });
}

afterAll(() => rmSync(project, { recursive: true, force: true }));

describe('the CLI run from a subdirectory', () => {
  it('opens the project root database, not a new one in the current directory', async () => {
    await quire(project, ['orgs', 'create', '--name', 'Acme']);
    expect(existsSync(join(project, 'data', 'quire.db'))).toBe(true);
    const { stdout } = await quire(join(project, 'docs', 'guides'), ['orgs', 'list', '--json']);
    expect((JSON.parse(stdout) as { name: string }[]).map((organization) => organization.name)).toEqual(['Acme']);
    expect(existsSync(join(project, 'docs', 'guides', 'data'))).toBe(false);
  });

  it('says which database it opened when a listing finds nothing', async () => {
    const { stdout } = await quire(join(project, 'docs'), ['keys', 'list']);
    expect(stdout).toContain(`SQLite database ${join(project, 'data', 'quire.db')}`);
    expect(existsSync(join(project, 'docs', 'data'))).toBe(false);
    const organizations = await quire(join(project, 'docs'), ['orgs', 'list'], { QUIRE_DATA_DIR: 'vacant' });
    expect(organizations.stdout).toBe(`(none in SQLite database ${join(project, 'vacant', 'quire.db')})\n`);
  });

  it('resolves a relative QUIRE_DATA_DIR against the project root, as npm start does, not the current directory', async () => {
    const failure = await quire(join(project, 'docs'), ['keys', 'list'], { QUIRE_DATA_DIR: 'elsewhere' }).catch((error: { stderr: string }) => error);
    expect('stderr' in failure && failure.stderr).toContain(`There is no organization yet`);
    expect('stderr' in failure && failure.stderr).toContain(join(project, 'elsewhere', 'quire.db'));
    await quire(join(project, 'docs'), ['orgs', 'create', '--name', 'Elsewhere'], { QUIRE_DATA_DIR: 'elsewhere' });
    const { stdout } = await quire(join(project, 'docs', 'guides'), ['orgs', 'list', '--json'], { QUIRE_DATA_DIR: 'elsewhere' });
    expect((JSON.parse(stdout) as { name: string }[]).map((organization) => organization.name)).toEqual(['Elsewhere']);
    expect(existsSync(join(project, 'elsewhere', 'quire.db'))).toBe(true);
    expect(existsSync(join(project, 'docs', 'elsewhere'))).toBe(false);
  });

  it('takes an empty QUIRE_DATA_DIR as the default data directory under the project root', async () => {
    const { stdout } = await quire(join(project, 'docs'), ['orgs', 'list', '--json'], { QUIRE_DATA_DIR: '' });
    expect((JSON.parse(stdout) as { name: string }[]).map((organization) => organization.name)).toEqual(['Acme']);
    expect(existsSync(join(project, 'docs', 'quire.db'))).toBe(false);
  });

  it('refuses a key that expires in the past', async () => {
    const failure = await quire(project, ['keys', 'create', '--expires', '2020-01-01T00:00:00Z']).catch((error: { stderr: string; code: number }) => error);
    expect('code' in failure && failure.code).toBe(1);
    expect('stderr' in failure && failure.stderr).toContain('is in the past');
  });

  it('refuses HOST=0.0.0.0 without QUIRE_PUBLIC_URL, naming the setting', async () => {
    const failure = await quire(project, ['dashboard', 'link'], { HOST: '0.0.0.0' }).catch((error: { stderr: string; code: number }) => error);
    expect('code' in failure && failure.code).toBe(1);
    expect('stderr' in failure && failure.stderr).toContain('set QUIRE_PUBLIC_URL');
    const { stdout } = await quire(project, ['dashboard', 'link'], { HOST: '0.0.0.0', QUIRE_PUBLIC_URL: 'http://quire.test:8080' });
    expect(stdout).toContain('http://quire.test:8080/dashboard/sign-in?token=');
  });
});
