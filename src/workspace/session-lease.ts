import { rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { checkoutHold, checkoutHoldStaleMs } from './checkout.ts';
import { lockLapsed } from './lock.ts';

/**
 * A checkout an admin MCP session works in is leased (`quire-<job id>.session` beside it), from the session's
 * opening until it ends, and renewed while the session is used. The session lives in the API process that opened
 * it, and its job may have completed (a save) while the session goes on, so other processes on the machine (a
 * worker that sweeps checkouts, an API process taking a follow-up) cannot tell from the job alone that the checkout
 * is in use.
 */
const sessionLease = (root: string, jobId: string) => join(root, 'workspaces', `quire-${jobId}.session`);

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
 * Whether an admin MCP session on this machine holds the job's checkout: the session's lease is there, and the
 * checkout's hold is renewed. A session whose process died left its lease, but its hold lapses within a minute.
 */
export async function sessionHoldsCheckout(root: string, jobId: string): Promise<boolean> {
  const leased = (await stat(sessionLease(root, jobId)).catch(() => null)) !== null;
  return leased && !(await lockLapsed(checkoutHold(join(root, 'workspaces', `quire-${jobId}`)), checkoutHoldStaleMs));
}
