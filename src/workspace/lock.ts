import { mkdir, rm, stat, utimes } from 'node:fs/promises';
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

/** Runs `task` while holding the lock named by `path` (see `acquireLock`). */
export async function withLock<T>(path: string, task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
  const release = await acquireLock(path, { signal });
  try {
    return await task();
  } finally {
    await release();
  }
}

/**
 * Takes the lock named by `path` and returns its release (calling it again does nothing). Holders of one
 * process queue on a promise; processes sharing the data directory (several workers on one machine)
 * exclude each other with a lock directory, because `mkdir` is atomic on every file system git itself supports.
 */
export async function acquireLock(path: string, options: LockOptions = {}): Promise<() => Promise<void>> {
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
  try {
    await turn(previous, options.signal);
    await acquireDirectory(path, staleAfterMs, options.signal);
  } catch (error) {
    leave();
    throw error;
  }
  const renewal = setInterval(() => {
    const now = new Date();
    utimes(path, now, now).catch(() => undefined);
  }, staleAfterMs / 3);
  renewal.unref();
  let released: Promise<void> | null = null;
  return () =>
    (released ??= (async () => {
      clearInterval(renewal);
      try {
        await rm(path, { recursive: true, force: true });
      } finally {
        leave();
      }
    })());
}

/** Whether the lock named by `path` is free, or was left by a process that died (not renewed for `staleAfterMs`). */
export async function lockLapsed(path: string, staleAfterMs: number): Promise<boolean> {
  const info = await stat(path).catch(() => null);
  return info === null || Date.now() - info.mtimeMs > staleAfterMs;
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

async function acquireDirectory(path: string, staleAfterMs: number, signal?: AbortSignal): Promise<void> {
  // Any part of the data directory made here (all of it, on PostgreSQL) is the service user's alone.
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  for (;;) {
    signal?.throwIfAborted();
    try {
      await mkdir(path);
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    if (await lockLapsed(path, staleAfterMs)) await rm(path, { recursive: true, force: true });
    else await sleep(retryMs);
  }
}
