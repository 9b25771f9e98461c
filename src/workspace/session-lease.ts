import { rm, stat, writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { checkoutHold, checkoutHoldStaleMs, jobCheckoutDir } from './checkout.ts';
import { lockLapsed } from './lock.ts';

/**
 * A checkout an admin MCP session works in is leased (`quire-<job id>.session` beside it), from the session's
 * opening until it ends, and renewed while the session is used. The session lives in the API process that opened
 * it, and its job may have completed (a save) while the session goes on, so other processes on the machine (a
 * worker that sweeps checkouts, an API process taking a follow-up) cannot tell from the job alone that the checkout
 * is in use.
 */
const sessionLease = (root: string, jobId: string) => `${jobCheckoutDir(resolve(root), jobId)}.session`;

/** How long a lease counts without being renewed: the sessions' idle time (`QUIRE_MCP_SESSION_IDLE_MINUTES`) and a margin; an older one was left by a session whose process died. */
export const sessionLeaseMs = (idleMinutes: number): number => (idleMinutes + 2) * 60_000;

/** Creates or renews the lease of a job's checkout for its admin MCP session. */
export async function renewSessionLease(root: string, jobId: string): Promise<void> {
  await writeFile(sessionLease(root, jobId), '', { mode: 0o600 });
}

export async function endSessionLease(root: string, jobId: string): Promise<void> {
  await rm(sessionLease(root, jobId), { force: true });
}

/** Whether the lease of a job's checkout was renewed within `ms`; an older one was left by a session whose process died. */
export async function sessionLeasedWithin(root: string, jobId: string, ms: number): Promise<boolean> {
  const lease = await stat(sessionLease(root, jobId)).catch(() => null);
  return lease !== null && Date.now() - lease.mtimeMs < ms;
}

/**
 * Whether an admin MCP session on this machine holds the job's checkout: the session's lease is renewed within
 * `sessionLeaseMs(idleMinutes)`, and so is the checkout's hold. A session whose process died left its lease, but
 * its hold lapses within a minute, and a later run's hold is not taken for the dead session's once its lease is old.
 */
export async function sessionHoldsCheckout(root: string, jobId: string, idleMinutes: number): Promise<boolean> {
  if (!(await sessionLeasedWithin(root, jobId, sessionLeaseMs(idleMinutes)))) return false;
  return !(await lockLapsed(checkoutHold(jobCheckoutDir(resolve(root), jobId)), checkoutHoldStaleMs));
}
