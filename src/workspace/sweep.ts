import { jobBranch } from '../lib/job-branch.ts';
import { readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { runGit } from './git.ts';
import { withLock } from './lock.ts';
import { removeWorktree } from './workspace.ts';

/** A job's checkout directory: its branch `quire/<job id>` with the slash made a dash. */
const jobDirectory = /^quire-(job_[0-9A-Z]{26})$/;

/**
 * Removes checkouts that a job's run left behind when its process died (SIGKILL, power loss)
 * instead of disposing of them, once the job is no longer active: a job retried by another
 * worker clears its own old checkout, but one that ended `failed` after its last attempt, or that
 * completed elsewhere, would keep its files forever. Each removal happens under the mirror's
 * lock, after asking again, so a follow-up that reopens the job meanwhile keeps its checkout.
 * Returns how many checkouts were removed.
 */
export async function sweepWorkspaces(root: string, isActive: (jobId: string) => Promise<boolean>): Promise<number> {
  const base = join(root, 'workspaces');
  const names = await readdir(base).catch(() => [] as string[]);
  let removed = 0;
  for (const name of names) {
    const jobId = jobDirectory.exec(name)?.[1];
    if (!jobId || (await isActive(jobId))) continue;
    const dir = join(base, name);
    // A worktree's `.git` file names its mirror: `gitdir: <mirror>/worktrees/<name>`.
    const link = await readFile(join(dir, '.git'), 'utf8').catch(() => '');
    const mirror = /^gitdir: (.+)\/worktrees\/[^/\n]+\s*$/m.exec(link)?.[1];
    if (!mirror) {
      await rm(dir, { recursive: true, force: true });
      removed++;
      continue;
    }
    const swept = await withLock(`${mirror}.lock`, async () => {
      if (await isActive(jobId)) return false;
      await removeWorktree(mirror, dir);
      await runGit(['branch', '--quiet', '-D', jobBranch(jobId)], { cwd: mirror }).catch(() => undefined);
      return true;
    });
    if (swept) removed++;
  }
  return removed;
}
