import { randomBytes } from 'node:crypto';
import { closeSync, fchmodSync, fstatSync, linkSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makePrivateDirectory, modeOpenToOthers, syncPath } from '../lib/private-files.ts';
import type { Config } from './config.ts';
import { ConfigError, secretKey } from './parsers.ts';

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
  let descriptor: number;
  try {
    descriptor = openSync(path, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    const { mode, uid } = fstatSync(descriptor);
    if (modeOpenToOthers(mode & 0o777)) {
      // Ours: closed to others at once. A file system that keeps no modes (FAT, some network volumes) shows the
      // same mode after, and nothing more can be done there. Another user's file is refused: it may be planted.
      if (uid === process.getuid?.()) fchmodSync(descriptor, 0o600);
      else {
        throw new ConfigError(
          `${path} holds the key that opens the stored tokens and secrets, but it belongs to another user and others have access to it (mode ${(mode & 0o777).toString(8)}): make it the service user's with mode 600 ("chown" and "chmod 600 ${path}") and start again.`,
        );
      }
    }
    const text = readFileSync(descriptor, 'utf8').trim();
    // Quire links the key file into place whole (create below), so an empty one is what an interrupted
    // first start of an earlier version left: it never held a key that sealed anything.
    if (text === '')
      throw new ConfigError(
        `${path} is empty: a first start was interrupted before it wrote the key. Delete it and start again to make a new key; should start-up then say the database holds secrets sealed with another key, put that key into the file (mode 0600) or set QUIRE_SECRET_KEY to it.`,
      );
    return secretKey(text, path);
  } finally {
    closeSync(descriptor);
  }
}

/** What `link` answers on a file system that has no hard links. */
const noHardLinks = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EXDEV', 'EMLINK']);

/**
 * Writes a new key to a file of its own (mode 0600) and links it into place, so no process ever sees
 * the key file empty or half written; of several first starts at once, the first link wins and the
 * others read its key.
 */
function create(dataDir: string): Buffer {
  const path = secretKeyPath(dataDir);
  makePrivateDirectory(dataDir);
  const key = randomBytes(32);
  const written = join(dataDir, `.secret-key-${randomBytes(6).toString('hex')}`);
  writeFileSync(written, `${key.toString('base64')}\n`, { mode: 0o600, flag: 'wx', flush: true });
  try {
    linkSync(written, path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? '';
    // Another process starting at the same moment made it first: use theirs.
    if (code === 'EEXIST') return read(path)!;
    if (!noHardLinks.has(code)) throw error;
    // A file system without hard links (some network and FAT volumes): created in place, which a first start
    // beside this one may see empty for a moment, and then says so (read, above).
    try {
      writeFileSync(path, `${key.toString('base64')}\n`, { mode: 0o600, flag: 'wx', flush: true });
    } catch (fallback) {
      if ((fallback as NodeJS.ErrnoException).code === 'EEXIST') return read(path)!;
      throw fallback;
    }
  } finally {
    rmSync(written, { force: true });
  }
  // Secrets are sealed with the key from now on: the file must outlive a power loss.
  syncPath(dataDir);
  return key;
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
