import { chmodSync, copyFileSync, existsSync, renameSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { backup, DatabaseSync } from 'node:sqlite';
import { createPrivateFile, makePrivateDirectory, syncPath } from '../../lib/private-files.ts';

/** Pages copied per step of an online backup: 4 MB at SQLite's default page size, so progress moves often. */
const pagesPerStep = 1024;

export interface BackupProgress {
  totalPages: number;
  remainingPages: number;
  pageBytes: number;
}

/** The database is open in another process (a server, a worker, another verb): it cannot be replaced now. */
export class DatabaseInUseError extends Error {}

/** A file name beside `path`, in its directory, so the final rename stays on one file system and is atomic. */
const besidePath = (path: string, purpose: string) => join(dirname(path), `.${basename(path)}.${purpose}-${process.pid}`);

/**
 * Copies the database at `source` to `destination` while other processes keep writing to it. The copy
 * runs inside one read transaction, so it is the database as of one commit and SQLite never restarts it
 * for a concurrent write (WAL lets writers go on beside the reader). It is written beside `destination`,
 * synced, then renamed over it: an interrupted backup leaves no half file under that name.
 */
export async function backupSqlite(source: string, destination: string, onProgress?: (progress: BackupProgress) => void): Promise<number> {
  // Not read-only: a read-only connection cannot open a WAL database whose -shm file is not there yet.
  const database = new DatabaseSync(source, { timeout: 10_000 });
  const partial = besidePath(destination, 'partial');
  try {
    // The copy holds what the database holds: for the service user alone, as the database is (lib/private-files.ts).
    createPrivateFile(partial);
    database.exec('begin');
    // The first read fixes the snapshot every step of the backup reads.
    database.prepare('select count(*) from sqlite_master').get();
    const { page_size: pageBytes } = database.prepare('pragma page_size').get() as { page_size: number };
    const pages = await backup(database, partial, { rate: pagesPerStep, progress: (progress) => onProgress?.({ ...progress, pageBytes }) });
    database.exec('commit');
    syncPath(partial);
    renameSync(partial, destination);
    syncPath(dirname(destination));
    return pages;
  } catch (error) {
    rmSync(partial, { force: true });
    throw error;
  } finally {
    database.close();
  }
}

/** Throws DatabaseInUseError when any process has `path` open: every SQLite connection in WAL mode holds a shared lock on it. */
function checkNotInUse(path: string): void {
  if (!existsSync(path)) return;
  const database = new DatabaseSync(path, { timeout: 0 });
  try {
    database.exec('pragma locking_mode = exclusive');
    database.exec('begin exclusive');
    database.exec('commit');
  } catch (error) {
    if ((error as { errcode?: number }).errcode === 5) throw new DatabaseInUseError(`${path} is open in another process.`, { cause: error });
    throw error;
  } finally {
    // The last connection to close checkpoints and removes the -wal file of the database being replaced.
    database.close();
  }
}

/** Throws unless `path` is a readable SQLite database with Quire's migrations table. */
function checkBackup(path: string): void {
  const database = new DatabaseSync(path);
  try {
    const { quick_check: check } = database.prepare('pragma quick_check').get() as { quick_check: string };
    if (check !== 'ok') throw new Error(`${path} is damaged: ${check}`);
    if (!database.prepare("select 1 from sqlite_master where type = 'table' and name = 'quire_migrations'").get()) {
      throw new Error(`${path} is a SQLite database, but not one of Quire (it has no quire_migrations table).`);
    }
  } finally {
    database.close();
  }
}

/**
 * Replaces the database at `path` with the backup `source`: refuses while any process has `path` open
 * (checked before and after the copy), copies `source` beside it and checks the copy, syncs it, removes the old database's -wal and -shm
 * files (a later open would replay them into the new one) and renames the copy over `path`.
 */
export function restoreSqlite(source: string, path: string): void {
  const staged = besidePath(path, 'restoring');
  checkNotInUse(path);
  makePrivateDirectory(dirname(path));
  try {
    copyFileSync(source, staged);
    // copyFileSync gives the copy the backup's mode (0644 for one an older version wrote).
    chmodSync(staged, 0o600);
    checkBackup(staged);
    syncPath(staged);
    // Again: a copy of a large database takes a while, and a server may have started meanwhile.
    checkNotInUse(path);
    for (const suffix of ['-wal', '-shm', '-journal']) rmSync(`${path}${suffix}`, { force: true });
    renameSync(staged, path);
    syncPath(dirname(path));
  } finally {
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${staged}${suffix}`, { force: true });
  }
}
