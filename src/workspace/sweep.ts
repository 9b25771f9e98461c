import { readdir, readFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { lockLapsed, removeLapsedLock, withLock } from './lock.ts';
import { checkoutHold, checkoutHoldStaleMs, discardWorktree, removeWorktree } from './checkout.ts';
import { endSessionLease, sessionLeasedWithin, sessionLeaseMs } from './session-lease.ts';

/** A job's checkout directory: `quire-<job id>` (workspace.ts). */
const jobDirectory = /^quire-(job_[0-9A-Z]{26})$/;
/** The lock a job's checkout is held by: `quire-<job id>.lock` (checkout.ts). */
const jobHold = /^quire-job_[0-9A-Z]{26}\.lock$/;

/**
 * Removes what processes that died (SIGKILL, power loss) left behind instead of disposing of it:
 * checkouts of jobs no longer active, as `isActive` tells (a job retried by another worker clears its
 * own old checkout, but one that ended `failed` after its last attempt, or that completed elsewhere,
 * would keep its files forever) and whose hold no run renews, the checkout holds they no longer renew,
 * and the read-only snapshots that earlier versions checked out for docs builds (builds now read git
 * objects: commit-tree.ts) once no process renews their lease. Each checkout or snapshot is removed
 * under the mirror's lock, after asking again, so a follow-up that reopens the job meanwhile keeps its
 * checkout. Returns how many checkouts and snapshots were removed.
 */
export async function sweepWorkspaces(root: string, isActive: (jobId: string) => Promise<boolean>, options: { sessionLeaseMs?: number } = {}): Promise<number> {
  return (await sweepCheckouts(root, isActive, options.sessionLeaseMs ?? defaultSessionLeaseMs)) + (await sweepSnapshots(root));
}

/**
 * A session lease (session-lease.ts) not renewed for `sessionLeaseMs` (the sessions' idle time and a margin)
 * belongs to a session that ended without removing it: its process died.
 */
const defaultSessionLeaseMs = sessionLeaseMs(60);

async function sweepCheckouts(root: string, isActive: (jobId: string) => Promise<boolean>, sessionLeaseMs: number): Promise<number> {
  const base = join(root, 'workspaces');
  const leased = (jobId: string) => sessionLeasedWithin(root, jobId, sessionLeaseMs);
  // A checkout whose hold is renewed is a live run's, whatever its job's status: a cancelled job is `failed` while
  // its run still takes back its push (up to a minute), in the checkout, before disposing of it.
  const held = async (dir: string) => !(await lockLapsed(checkoutHold(dir), checkoutHoldStaleMs));
  const inUse = async (dir: string, jobId: string) => (await held(dir)) || (await isActive(jobId)) || (await leased(jobId));
  let removed = 0;
  for (const name of await readdir(base).catch(() => [] as string[])) {
    // A hold no process renews was left by one that died; a live one is a run's, perhaps one still ending after a cancel.
    if (jobHold.test(name)) {
      await removeLapsedLock(join(base, name), checkoutHoldStaleMs);
      continue;
    }
    const jobId = jobDirectory.exec(name)?.[1];
    const dir = join(base, name);
    if (!jobId || (await inUse(dir, jobId))) continue;
    const swept = await removeUnder(
      dir,
      () => inUse(dir, jobId),
      async (mirror) => {
        await discardWorktree(mirror, dir, jobId);
        await endSessionLease(root, jobId);
      },
    );
    if (swept) removed++;
  }
  return removed;
}

/**
 * A snapshot's lease (`<dir>.lease`, renewed every minute by the process of an earlier version that
 * holds it) not renewed for ten minutes belongs to a process that died, or to no process at all.
 */
const leaseStaleAfterMs = 10 * 60_000;

async function leaseLapsed(dir: string, now = Date.now()): Promise<boolean> {
  const info = await stat(`${dir}.lease`).catch(() => null);
  return !info || now - info.mtimeMs > leaseStaleAfterMs;
}

/** Removes the snapshots (detached worktrees of a mirror) and leases that earlier versions left under `<root>/snapshots`. */
async function sweepSnapshots(root: string): Promise<number> {
  const base = join(root, 'snapshots');
  let removed = 0;
  for (const name of await readdir(base).catch(() => [] as string[])) {
    if (name.endsWith('.lease')) {
      // A lease whose snapshot is gone: its process died between the two, or removed the snapshot first.
      const dir = join(base, name.slice(0, -'.lease'.length));
      if ((await leaseLapsed(dir)) && !(await stat(dir).catch(() => null))) await rm(join(base, name), { force: true });
      continue;
    }
    const dir = join(base, name);
    if (!(await leaseLapsed(dir))) continue;
    const swept = await removeUnder(
      dir,
      async () => !(await leaseLapsed(dir)),
      async (mirror, worktree) => {
        await removeWorktree(mirror, worktree);
        await rm(`${worktree}.lease`, { force: true });
      },
    );
    if (swept) removed++;
  }
  return removed;
}

/**
 * Removes the worktree in `dir` with `remove` under its mirror's lock, unless `inUse` says otherwise
 * once the lock is held. A directory that never became a worktree (a failed start) is simply deleted.
 */
async function removeUnder(dir: string, inUse: () => Promise<boolean>, remove: (mirror: string, dir: string) => Promise<void>): Promise<boolean> {
  // A worktree's `.git` file names its mirror: `gitdir: <mirror>/worktrees/<name>`.
  const link = await readFile(join(dir, '.git'), 'utf8').catch(() => '');
  const mirror = /^gitdir: (.+)\/worktrees\/[^/\n]+\s*$/m.exec(link)?.[1];
  if (!mirror) {
    await rm(dir, { recursive: true, force: true });
    return true;
  }
  return withLock(`${mirror}.lock`, async () => {
    if (await inUse()) return false;
    await remove(mirror, dir);
    return true;
  });
}
