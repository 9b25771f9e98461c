import { stat, utimes, writeFile } from 'node:fs/promises';

/** How often an open snapshot says it is still in use. */
const renewEveryMs = 60_000;

/**
 * A lease not renewed for this long belongs to a process that died: ten renewals missed, far more
 * than a busy event loop delays a timer.
 */
export const leaseStaleAfterMs = 10 * 60_000;

/** The lease file beside a snapshot's folder (never inside it, where it would be one of its files). */
export function leasePath(dir: string): string {
  return `${dir}.lease`;
}

/**
 * Marks the snapshot in `dir` as in use until the returned function is called, by renewing the lease
 * file's modification time: processes sharing the data directory see it, as they see `lock.ts`'s locks.
 */
export async function holdLease(dir: string): Promise<() => void> {
  const path = leasePath(dir);
  await writeFile(path, `${process.pid}\n`);
  const timer = setInterval(() => {
    const now = new Date();
    utimes(path, now, now).catch(() => undefined);
  }, renewEveryMs).unref();
  return () => clearInterval(timer);
}

/** Whether the snapshot in `dir` has no lease, or one nobody renewed in time. */
export async function leaseLapsed(dir: string, now = Date.now()): Promise<boolean> {
  const info = await stat(leasePath(dir)).catch(() => null);
  return !info || now - info.mtimeMs > leaseStaleAfterMs;
}
