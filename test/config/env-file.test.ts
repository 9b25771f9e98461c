import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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

  it('gives way to QUIRE_SECRET_KEY, and is never made for PostgreSQL', () => {
    const dataDir = join(directory(), 'data');
    const explicit = Buffer.alloc(32, 7).toString('base64');
    expect(withStoredSecretKey(loadConfig({ QUIRE_DATA_DIR: dataDir, QUIRE_SECRET_KEY: explicit }), true).secretKey?.toString('base64')).toBe(explicit);
    expect(withStoredSecretKey(loadConfig({ QUIRE_DATA_DIR: dataDir, DATABASE_URL: 'postgres://127.0.0.1/none' }), true).secretKey).toBeUndefined();
    expect(() => statSync(secretKeyPath(dataDir))).toThrow();
  });
});
