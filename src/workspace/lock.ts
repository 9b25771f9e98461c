import { randomBytes } from 'node:crypto';
import { link, mkdir, readFile, rename, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/** How long a lock may go unrenewed before it counts as left by a process that died, unless its holder chose another time. */
const defaultStaleAfterMs = 10 * 60_000;
const retryMs = 50;

const held = new Map<string, Promise<void>>();

interface LockOptions {
  /** Stops the wait for the lock; a held lock is given up by its release only. */
  signal?: AbortSignal;
  /**
   * A lock not renewed for this long belongs to a process that died, and is taken over (default 10 minutes).
   * Its holder renews it every third of that, so a live holder keeps it however long it holds it.
   */
  staleAfterMs?: number;
}

/** A lock `acquireLock` took. */
export interface HeldLock {
  /**
   * Whether the lock is still this holder's: false after `release`, and once another process took it over
   * because this one stalled (a paused machine, SIGSTOP) for longer than the lock may go unrenewed. Ask
   * before changing what the lock guards.
   */
  held(): Promise<boolean>;
  /** Gives the lock up, unless another process took it over meanwhile; calling it again does nothing. */
  release(): Promise<void>;
}

/** Runs `task` while holding the lock named by `path` (see `acquireLock`). */
export async function withLock<T>(path: string, task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
  const lock = await acquireLock(path, { signal });
  try {
    return await task();
  } finally {
    await lock.release();
  }
}

/**
 * Takes the lock named by `path`. Holders of one process queue on a promise; processes sharing the data directory
 * (several workers on one machine) exclude each other with a lock file holding its holder's token, created only
 * where none exists (`O_EXCL`, as git's own lock files are). The holder renews it, and renews or removes it only
 * while it still holds its token, so a holder that stalled and was taken over never touches its successor's lock.
 */
export async function acquireLock(path: string, options: LockOptions = {}): Promise<HeldLock> {
  const staleAfterMs = options.staleAfterMs ?? defaultStaleAfterMs;
  const previous = held.get(path) ?? Promise.resolve();
  let release!: () => void;
  const current = new Promise<void>((resolve) => (release = resolve));
  const chained = previous.then(() => current);
  held.set(path, chained);
  // A holder that gave up waiting passes its turn on: the next one still waits for `previous`.
  const leave = () => {
    release();
    if (held.get(path) === chained) held.delete(path);
  };
  const token = randomBytes(16).toString('hex');
  try {
    await turn(previous, options.signal);
    await createLockFile(path, token, staleAfterMs, options.signal);
  } catch (error) {
    leave();
    throw error;
  }
  let ours = true;
  const stillOurs = async () => (ours &&= (await tokenOf(path)) === token);
  const renew = async () => {
    if (!(await stillOurs())) return clearInterval(renewal);
    const now = new Date();
    await utimes(path, now, now);
  };
  const renewal = setInterval(() => void renew().catch(() => undefined), staleAfterMs / 3);
  renewal.unref();
  let released: Promise<void> | null = null;
  return {
    held: stillOurs,
    release: () =>
      (released ??= (async () => {
        clearInterval(renewal);
        try {
          if (await stillOurs()) await displace(path, async (moved) => (await tokenOf(moved)) === token);
        } finally {
          ours = false;
          leave();
        }
      })()),
  };
}

/** Whether the lock named by `path` is free, or was left by a process that died (not renewed for `staleAfterMs`). */
export async function lockLapsed(path: string, staleAfterMs: number): Promise<boolean> {
  const info = await stat(path).catch(() => null);
  return info === null || Date.now() - info.mtimeMs > staleAfterMs;
}

/** Removes the lock named by `path` when it lapsed (see `lockLapsed`), never one taken or renewed meanwhile. */
export async function removeLapsedLock(path: string, staleAfterMs: number): Promise<void> {
  if (await lockLapsed(path, staleAfterMs)) await displace(path, (moved) => lockLapsed(moved, staleAfterMs));
}

/** The token in a lock file, or null when there is none (no lock, or the lock directory of an earlier version). */
async function tokenOf(path: string): Promise<string | null> {
  return readFile(path, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT' || error.code === 'EISDIR') return null;
    throw error;
  });
}

/**
 * Moves the lock at `path` aside to a name of its own (a rename is atomic: of several processes, one moves a given
 * lock) and deletes it when `meant` says it is the lock the caller meant to remove (its own, or the lapsed one it
 * saw). Otherwise another process made a lock there between the caller's look and the move, and it is put back.
 */
async function displace(path: string, meant: (moved: string) => Promise<boolean>): Promise<void> {
  const tombstone = `${path}.${randomBytes(8).toString('hex')}.stale`;
  try {
    await rename(path, tombstone);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  if (!(await meant(tombstone))) {
    // A link never replaces a lock made since. Should one be there already, the lock moved aside is lost, and its
    // holder learns so from `held`. Lock directories of earlier versions go back by rename.
    const back = (await stat(tombstone)).isDirectory() ? rename(tombstone, path) : link(tombstone, path);
    await back.catch(() => undefined);
  }
  await rm(tombstone, { recursive: true, force: true });
}

/** Waits for the holder before this one in the process, or until `signal` aborts. */
async function turn(previous: Promise<void>, signal?: AbortSignal): Promise<void> {
  if (!signal) return previous;
  signal.throwIfAborted();
  let abort!: () => void;
  const aborted = new Promise<never>((_, reject) => {
    abort = () => reject(signal.reason);
    signal.addEventListener('abort', abort, { once: true });
  });
  try {
    await Promise.race([previous, aborted]);
  } finally {
    signal.removeEventListener('abort', abort);
  }
}

async function createLockFile(path: string, token: string, staleAfterMs: number, signal?: AbortSignal): Promise<void> {
  // Any part of the data directory made here (all of it, on PostgreSQL) is the service user's alone.
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  for (;;) {
    signal?.throwIfAborted();
    try {
      // The token goes through the descriptor: should a process that found the lock it replaced lapsed move this one
      // aside meanwhile, it puts this file back with the token in it.
      await writeFile(path, token, { flag: 'wx', mode: 0o600 });
      return;
    } catch (error) {
      // EEXIST: a lock file, or an earlier version's lock directory.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    if (await lockLapsed(path, staleAfterMs)) await displace(path, (moved) => lockLapsed(moved, staleAfterMs));
    else await sleep(retryMs);
  }
}
