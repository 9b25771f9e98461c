import { spawn } from 'node:child_process';
import { chmodSync, chownSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.ts';
import { applyEnvFile } from '../../src/config/env-file.ts';
import { ConfigError, hidden, hiddenPassword } from '../../src/config/parsers.ts';
import { secretKeyPath, withStoredSecretKey } from '../../src/config/secret-key-file.ts';

const directories: string[] = [];
function directory(): string {
  const made = mkdtempSync(join(tmpdir(), 'quire-env-'));
  directories.push(made);
  return made;
}
afterEach(() => {
  for (const made of directories.splice(0)) rmSync(made, { recursive: true, force: true });
});

describe('the settings file', () => {
  it('fills in what the environment lacks, and the environment wins', () => {
    const path = join(directory(), '.env');
    writeFileSync(path, '# Quire\nPORT=9090\nexport LOG_LEVEL=debug\nGITHUB_TOKEN="ghp_from file"\n');
    const environment: NodeJS.ProcessEnv = { LOG_LEVEL: 'warn' };
    const file = applyEnvFile(environment, path, false);
    expect(environment).toEqual({ LOG_LEVEL: 'warn', PORT: '9090', GITHUB_TOKEN: 'ghp_from file' });
    expect([...file!.names].sort()).toEqual(['GITHUB_TOKEN', 'PORT']);
    expect(loadConfig(environment)).toMatchObject({ port: 9090, logLevel: 'warn', githubToken: 'ghp_from file' });
  });

  it('is optional as .env, but must exist when named', () => {
    const missing = join(directory(), 'missing.env');
    expect(applyEnvFile({}, missing, false)).toBeNull();
    expect(() => applyEnvFile({}, missing, true)).toThrow(ConfigError);
    expect(() => applyEnvFile({}, missing, true)).toThrow(/QUIRE_ENV_FILE/);
  });

  it('masks secrets: tokens whole, a database URL its password only', () => {
    expect(hidden('ghp_secret')).toBe('****');
    expect(hiddenPassword('postgres://quire:s3cret@db.internal:5432/quire')).toBe('postgres://quire:****@db.internal:5432/quire');
    expect(hiddenPassword('postgres://db.internal/quire')).toBe('postgres://db.internal/quire');
  });
});

describe('the secret key kept in the data directory', () => {
  it('is made once, readable by its owner only, and used again', () => {
    const dataDir = join(directory(), 'data');
    const config = loadConfig({ QUIRE_DATA_DIR: dataDir });
    expect(withStoredSecretKey(config, false).secretKey).toBeUndefined();
    const made = withStoredSecretKey(config, true).secretKey;
    expect(made).toHaveLength(32);
    expect(statSync(secretKeyPath(dataDir)).mode & 0o777).toBe(0o600);
    expect(withStoredSecretKey(config, true).secretKey).toEqual(made);
    expect(withStoredSecretKey(config, false).secretKey).toEqual(made);
  });

  it('is one key for every process of a first start, even when they start at the same moment', async () => {
    // Each process makes the keys of the same data directories at the same instants (a start time sent once
    // all are loaded), as `quire serve` and `quire worker` started together do; none may end without a key
    // or with another one.
    const rounds = Array.from({ length: 100 }, (_, round) => join(directory(), `data-${round}`));
    const script = [
      `import { loadConfig } from ${JSON.stringify(resolve('src/config/config.ts'))};`,
      `import { withStoredSecretKey } from ${JSON.stringify(resolve('src/config/secret-key-file.ts'))};`,
      'const dataDirs = JSON.parse(process.argv[1]);',
      "process.stdout.write('ready\\n');",
      "process.stdin.once('data', (startAt) => {",
      '  const keys = dataDirs.map((dataDir, round) => {',
      '    while (Date.now() < Number(startAt) + round * 10);',
      '    try {',
      "      return withStoredSecretKey(loadConfig({ QUIRE_DATA_DIR: dataDir }), true).secretKey?.toString('base64') ?? 'no key';",
      '    } catch (error) {',
      '      return `error: ${error.message}`;',
      '    }',
      '  });',
      '  process.stdout.write(JSON.stringify(keys));',
      '  process.stdin.destroy();',
      '});',
    ].join('\n');
    const children = Array.from({ length: 4 }, () => {
      const child = spawn(process.execPath, ['--input-type=module', '-e', script, JSON.stringify(rounds)], { stdio: ['pipe', 'pipe', 'inherit'] });
      let output = '';
      const ready = new Promise<void>((resolve) =>
        child.stdout.on('data', (chunk) => {
          output += String(chunk);
          if (output.startsWith('ready\n')) resolve();
        }),
      );
      const keys = new Promise<string[]>((resolve) => child.on('close', () => resolve(JSON.parse(output.slice('ready\n'.length)) as string[])));
      return { child, ready, keys };
    });
    await Promise.all(children.map(({ ready }) => ready));
    const startAt = String(Date.now() + 100);
    for (const { child } of children) child.stdin.write(startAt);
    const keys = await Promise.all(children.map((started) => started.keys));
    rounds.forEach((dataDir, round) => {
      const stored = readFileSync(secretKeyPath(dataDir), 'utf8').trim();
      expect(Buffer.from(stored, 'base64')).toHaveLength(32);
      expect(keys.map((made) => made[round])).toEqual(keys.map(() => stored));
      expect(readdirSync(dataDir)).toEqual(['secret-key']);
    });
  });

  it('refuses an empty key file with what to do, rather than running without a key', () => {
    const dataDir = directory();
    writeFileSync(secretKeyPath(dataDir), '', { mode: 0o600 });
    const config = loadConfig({ QUIRE_DATA_DIR: dataDir });
    for (const make of [true, false]) {
      expect(() => withStoredSecretKey(config, make)).toThrow(ConfigError);
      expect(() => withStoredSecretKey(config, make)).toThrow(
        `${secretKeyPath(dataDir)} is empty: a first start was interrupted before it wrote the key. Delete it`,
      );
    }
    expect(readFileSync(secretKeyPath(dataDir), 'utf8')).toBe('');
  });

  it('closes its own key file to other users, and refuses another user’s that others can read', () => {
    const dataDir = directory();
    const path = secretKeyPath(dataDir);
    writeFileSync(path, `${Buffer.alloc(32, 9).toString('base64')}\n`);
    for (const mode of [0o644, 0o640, 0o604]) {
      chmodSync(path, mode);
      expect(withStoredSecretKey(loadConfig({ QUIRE_DATA_DIR: dataDir }), false).secretKey).toEqual(Buffer.alloc(32, 9));
      expect(statSync(path).mode & 0o777).toBe(0o600);
    }
    // Planted by another user (the tests run as root, who may give a file away): refused, left as it is.
    if (process.getuid?.() === 0) {
      chownSync(path, 65534, 65534);
      chmodSync(path, 0o644);
      expect(() => withStoredSecretKey(loadConfig({ QUIRE_DATA_DIR: dataDir }), false)).toThrow(
        `belongs to another user and others have access to it (mode 644): make it the service user's with mode 600`,
      );
      expect(statSync(path).mode & 0o777).toBe(0o644);
    }
  });

  it('gives way to QUIRE_SECRET_KEY, and is never made for PostgreSQL', () => {
    const dataDir = join(directory(), 'data');
    const explicit = Buffer.alloc(32, 7).toString('base64');
    expect(withStoredSecretKey(loadConfig({ QUIRE_DATA_DIR: dataDir, QUIRE_SECRET_KEY: explicit }), true).secretKey?.toString('base64')).toBe(explicit);
    expect(withStoredSecretKey(loadConfig({ QUIRE_DATA_DIR: dataDir, DATABASE_URL: 'postgres://127.0.0.1/none' }), true).secretKey).toBeUndefined();
    expect(() => statSync(secretKeyPath(dataDir))).toThrow();
  });
});
