import { mkdir, rm, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/** A lock held longer than this belongs to a process that died; a mirror fetch never takes so long. */
const staleAfterMs = 10 * 60_000;
const retryMs = 50;

const held = new Map<string, Promise<void>>();

/**
 * Runs `task` while holding the lock named by `path`. Jobs of one process queue on a promise;
 * processes sharing the data directory (several workers on one machine) exclude each other with a
 * lock directory, because `mkdir` is atomic on every file system git itself supports.
 */
export async function withLock<T>(path: string, task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
  const previous = held.get(path) ?? Promise.resolve();
  let release!: () => void;
  const current = new Promise<void>((resolve) => (release = resolve));
  const chained = previous.then(() => current);
  held.set(path, chained);
  try {
    await previous;
    await acquireDirectory(path, signal);
    try {
      return await task();
    } finally {
      await rm(path, { recursive: true, force: true });
    }
  } finally {
    release();
    if (held.get(path) === chained) held.delete(path);
  }
}

async function acquireDirectory(path: string, signal?: AbortSignal): Promise<void> {
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
    const info = await stat(path).catch(() => null);
    if (info && Date.now() - info.mtimeMs > staleAfterMs) await rm(path, { recursive: true, force: true });
    else await sleep(retryMs);
  }
}
