import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addConnection } from '../../src/accounts/connections.ts';
import { createOrganization } from '../../src/accounts/organizations.ts';
import { keyId } from '../../src/accounts/secrets.ts';
import { loadConfig } from '../../src/config/config.ts';
import { secretKeyPath } from '../../src/config/secret-key-file.ts';
import { openStorage } from '../../src/storage/open.ts';

const run = promisify(execFile);
const main = resolve('src/cli/main.ts');

/** The environment without any Quire setting of the machine running the tests. */
const cleanEnvironment = Object.fromEntries(
  Object.entries(process.env).filter(([name]) => !/^(QUIRE_|DATABASE_URL$|PORT$|HOST$|GITHUB_|GITLAB_|LOG_LEVEL$)/.test(name)),
);

interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

async function quire(cwd: string, env: NodeJS.ProcessEnv, ...args: string[]): Promise<Result> {
  try {
    const { stdout, stderr } = await run(process.execPath, [main, ...args], { cwd, env: { ...cleanEnvironment, ...env }, timeout: 60_000 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failure = error as { code: number; stdout: string; stderr: string };
    return { code: failure.code, stdout: failure.stdout, stderr: failure.stderr };
  }
}

interface Shown {
  name: string;
  value: string;
  source: string;
}

async function shownSettings(cwd: string, env: NodeJS.ProcessEnv): Promise<Map<string, Shown>> {
  const result = await quire(cwd, env, 'config', '--json');
  expect(result.code, result.stderr).toBe(0);
  return new Map((JSON.parse(result.stdout) as { settings: Shown[] }).settings.map((entry) => [entry.name, entry]));
}

describe('settings from a .env file in the project root', () => {
  let root: string;
  let docs: string;

  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'quire-settings-'));
    docs = join(root, 'docs');
    mkdirSync(docs);
    writeFileSync(join(root, 'package.json'), JSON.stringify({ name: 'site', devDependencies: { quire: '*' } }));
    writeFileSync(join(root, '.env'), 'QUIRE_DATA_DIR=./state\nPORT=9999\nGITHUB_TOKEN=ghp_fromthefile\nDATABASE_URL=\n');
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('a verb run from a subdirectory opens the data directory the file names', async () => {
    const created = await quire(docs, {}, 'orgs', 'create', '--name', 'From the file');
    expect(created.code, created.stderr).toBe(0);
    expect(existsSync(join(root, 'state', 'quire.db'))).toBe(true);
    expect(existsSync(join(docs, 'state'))).toBe(false);
  });

  it('quire config shows each value, secrets masked, and where it came from; the environment wins', async () => {
    const shown = await shownSettings(docs, { PORT: '7000', QUIRE_API_KEY: 'quire_fromtheenvironment' });
    expect(shown.get('PORT')).toEqual({ name: 'PORT', value: '7000', source: 'environment' });
    // The HTTP API clients' settings (`quire jobs`, `quire docs`) are listed with the others.
    expect(shown.get('QUIRE_URL')).toEqual({ name: 'QUIRE_URL', value: '(unset)', source: 'default' });
    expect(shown.get('QUIRE_API_KEY')).toEqual({ name: 'QUIRE_API_KEY', value: '****', source: 'environment' });
    expect(shown.get('GITHUB_TOKEN')).toEqual({ name: 'GITHUB_TOKEN', value: '****', source: `file ${join(root, '.env')}` });
    expect(shown.get('HOST')).toEqual({ name: 'HOST', value: '127.0.0.1', source: 'default' });
    expect(JSON.stringify([...shown.values()])).not.toContain('ghp_fromthefile');
    expect(JSON.stringify([...shown.values()])).not.toContain('quire_fromtheenvironment');
  });

  it('quire config and a refused start show no secret: not a malformed private key, nor passwords in URLs', async () => {
    const secrets = {
      GITHUB_APP_PRIVATE_KEY: 'MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcw',
      DATABASE_URL: 'postgres://quire@db.internal/quire?password=hunter2&sslpassword=hunter3',
      OPENAI_BASE_URL: 'http://ollama:s3cret@127.0.0.1:11434/v1',
      GITLAB_URL: '//oauth2:glpat-s3cret@gitlab.example.com',
    };
    const result = await quire(docs, secrets, 'config', '--json');
    expect(result.code).toBe(1);
    const report = JSON.parse(result.stdout) as { settings: Shown[]; problems: string[] };
    const shown = new Map(report.settings.map((entry) => [entry.name, entry.value]));
    expect(shown.get('GITHUB_APP_PRIVATE_KEY')).toBe('****');
    expect(shown.get('DATABASE_URL')).toBe('postgres://quire@db.internal/quire?password=****&sslpassword=****');
    expect(shown.get('OPENAI_BASE_URL')).toBe('http://****:****@127.0.0.1:11434/v1');
    expect(report.problems).toHaveLength(2);
    expect(report.problems[0]).toMatch(/^GITHUB_APP_PRIVATE_KEY is neither/);
    expect(report.problems[1]).toMatch(/^GITLAB_URL must be an absolute URL/);
    const started = await quire(docs, { ...secrets, GITLAB_URL: '', PORT: '0' }, 'serve');
    expect(started.code).toBe(1);
    expect(started.stderr).toMatch(/^GITHUB_APP_PRIVATE_KEY is neither/);
    for (const output of [result.stdout, result.stderr, started.stdout, started.stderr]) {
      for (const secret of ['MIIEvQ', 'hunter2', 'hunter3', 's3cret']) expect(output).not.toContain(secret);
    }
  });

  it('QUIRE_ENV_FILE names another file, which must exist', async () => {
    writeFileSync(join(root, 'other.env'), 'PORT=8181\n');
    const shown = await shownSettings(docs, { QUIRE_ENV_FILE: '../other.env' });
    expect(shown.get('PORT')).toEqual({ name: 'PORT', value: '8181', source: `file ${join(root, 'other.env')}` });
    expect(shown.get('GITHUB_TOKEN')?.source).toBe('default');
    const missing = await quire(docs, { QUIRE_ENV_FILE: 'missing.env' }, 'config');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain(`The settings file ${join(docs, 'missing.env')} cannot be read`);
  });

  it('quire serve makes a secret key at first start, and refuses to start when stored secrets were sealed with another', async () => {
    const dataDir = join(root, 'state');
    const otherKey = Buffer.alloc(32, 3);
    const storage = await openStorage(loadConfig({ QUIRE_DATA_DIR: dataDir }));
    try {
      const organization = await createOrganization(storage.db, 'Sealed');
      const config = loadConfig({ QUIRE_DATA_DIR: dataDir, QUIRE_SECRET_KEY: otherKey.toString('base64') });
      await addConnection(storage.db, config, organization.id, { kind: 'github-token', account: 'someone', token: 'ghp_sealed' });
    } finally {
      await storage.close();
    }

    const served = await quire(root, { PORT: '0' }, 'serve');
    expect(served.code).toBe(1);
    expect(statSync(secretKeyPath(dataDir)).mode & 0o777).toBe(0o600);
    expect(served.stderr).toContain(`encrypted with a key (id ${keyId(otherKey)}) that is neither QUIRE_SECRET_KEY nor QUIRE_SECRET_KEY_PREVIOUS`);
    expect(served.stderr).toMatch(/the key in use has id \S+\)/);

    const shown = await shownSettings(root, {});
    expect(shown.get('QUIRE_SECRET_KEY')).toEqual({ name: 'QUIRE_SECRET_KEY', value: '****', source: `data directory ${secretKeyPath(dataDir)}` });
    const explicit = await shownSettings(root, { QUIRE_SECRET_KEY: otherKey.toString('base64') });
    expect(explicit.get('QUIRE_SECRET_KEY')).toEqual({ name: 'QUIRE_SECRET_KEY', value: '****', source: 'environment' });
  });
});
