import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from './config.ts';
import { secretKey } from './parsers.ts';

/**
 * The key that seals stored secrets (code-host tokens, webhook and log drain secrets) when
 * QUIRE_SECRET_KEY is not set: made at the first start into the data directory, readable by its owner
 * only, and kept there, so a single-machine install works without making one by hand. It lives beside
 * the SQLite database, so a backup must copy both. PostgreSQL gets no such key: each node has its own
 * data directory, and a key in one would seal secrets the others cannot open; there the operator sets
 * the same QUIRE_SECRET_KEY on every node.
 */
export function secretKeyPath(dataDir: string): string {
  return join(dataDir, 'secret-key');
}

function read(path: string): Buffer | undefined {
  try {
    return secretKey(readFileSync(path, 'utf8').trim(), path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

function create(dataDir: string): Buffer {
  const path = secretKeyPath(dataDir);
  mkdirSync(dataDir, { recursive: true });
  const key = randomBytes(32);
  try {
    writeFileSync(path, `${key.toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
    return key;
  } catch (error) {
    // Another process starting at the same moment made it first: use theirs.
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return read(path)!;
    throw error;
  }
}

/** Whether `config` uses the data directory's key: no QUIRE_SECRET_KEY, and SQLite. */
export function usesStoredSecretKey(config: Pick<Config, 'secretKey' | 'databaseUrl'>): boolean {
  return config.secretKey === undefined && config.databaseUrl === undefined;
}

/**
 * `config` with the data directory's key as its secret key when it uses one (see above): the key
 * already there, or, with `make`, a new one.
 */
export function withStoredSecretKey(config: Config, make: boolean): Config {
  if (!usesStoredSecretKey(config)) return config;
  const key = read(secretKeyPath(config.dataDir)) ?? (make ? create(config.dataDir) : undefined);
  return key ? { ...config, secretKey: key } : config;
}
