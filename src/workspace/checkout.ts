import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { jobBranch } from '../lib/job-branch.ts';
import { displayRepository } from '../lib/display-repository.ts';
import { explainGitError } from './git-errors.ts';
import { runGit, type GitOptions } from './git.ts';
import { defaultBranch, exists, refreshMirror, resolveRefs } from './mirror.ts';
import { WorkspaceGitError, type WorkspaceOptions } from './types.ts';

type MirrorGit = GitOptions & { repository: string };

/** Where a job's checkout started: the base it compares its change with, and the job branch's commit on the remote, if any. */
export interface CheckedOut {
  baseBranch: string;
  baseCommit: string;
  remoteBefore: string | null;
}

/**
 * Fetches the mirror and checks the job branch out in `dir`; the caller holds the mirror's lock. Writing
 * every file is most of a checkout's time and the fetch of a remote that did not move most of the rest,
 * so when the mirror already holds the start (the ref, or the job branch of a follow-up) the files are
 * written from there while the fetch runs. The worktree is registered before the fetch starts, because
 * a fetch reads every worktree's HEAD and `git worktree add` writes a placeholder there first. If the
 * fetch moved the start, `git reset --hard` then rewrites only the files that differ; if the fetch
 * failed or refuses the checkout, the early checkout is removed.
 */
export async function checkOut(mirror: string, dir: string, options: WorkspaceOptions, git: MirrorGit): Promise<CheckedOut> {
  const local = localBranch(options.jobId);
  const add = (start: string, ...flags: string[]) => addWorktree(mirror, dir, [...flags, '--no-track', '-B', local, dir, start], git);
  const reset = (...start: string[]) => runGit(['reset', '--hard', '--quiet', ...start], { ...git, cwd: dir });
  const warm = options.ref !== null && (await exists(join(mirror, 'HEAD')));
  const guess = warm && options.ref !== null ? await knownStart(mirror, options.ref, options.branch, options.newBranch === true) : null;
  const registered =
    guess !== null &&
    (await add(guess, '--no-checkout').then(
      () => true,
      () => false,
    ));
  const [fetched, written] = await Promise.allSettled([refreshMirror(mirror, git), registered ? reset() : null]);
  try {
    if (fetched.status === 'rejected') throw fetched.reason;
    const baseBranch = options.ref ?? (await defaultBranch(mirror, git));
    const resolved = await resolveRefs(mirror, baseBranch, [options.branch]);
    const baseCommit = resolved.commit;
    if (!baseCommit) {
      throw new WorkspaceGitError(
        `Branch or ref "${baseBranch}" does not exist in ${displayRepository(git.repository)}; start the job from an existing branch (the create option ref, or the project's ref).`,
      );
    }
    const remoteBefore = resolved.branches.get(options.branch) ?? null;
    if (remoteBefore && options.newBranch) {
      throw new WorkspaceGitError(
        `Branch ${options.branch} already exists in ${displayRepository(git.repository)}; create the job with another branch name, or without one.`,
      );
    }
    const start = remoteBefore ?? baseCommit;
    if (!registered) await add(start);
    else if (start !== guess || written.status === 'rejected') {
      await reset(start).catch((error: unknown) => {
        throw explainGitError(error, 'fetch', git.repository);
      });
    }
    return { baseBranch, baseCommit, remoteBefore };
  } catch (error) {
    if (registered) await discardWorktree(mirror, dir, options.jobId);
    throw error;
  }
}

/** The commit the mirror holds, before fetching, for where the checkout will start; null when it holds none. */
async function knownStart(mirror: string, ref: string, branch: string, newBranch: boolean): Promise<string | null> {
  const known = await resolveRefs(mirror, ref, newBranch ? [] : [branch]).catch(() => null);
  return known?.branches.get(branch) ?? known?.commit ?? null;
}

/**
 * `git worktree add <args>` for the checkout `dir`. What a crashed run of the same job left is cleared
 * first when its folder is there, and otherwise only once `add` failed (a registration whose folder is
 * gone), before one more try: the usual checkout, a new job's, takes one git process instead of three.
 */
async function addWorktree(mirror: string, dir: string, args: string[], git: MirrorGit): Promise<void> {
  const add = () => runGit(['worktree', 'add', '--quiet', ...args], git);
  try {
    if (await exists(dir)) await removeWorktree(mirror, dir);
    await add().catch(async () => {
      await removeWorktree(mirror, dir);
      await add();
    });
  } catch (error) {
    throw explainGitError(error, 'fetch', git.repository);
  }
}

/**
 * The branch a job's checkout is on in the mirror: named by the job (`quire/<job id>`), whatever branch it pushes
 * to. The mirror is shared by every project on the repository, in every organization, and git lets one branch be
 * checked out in one worktree only: two jobs pushing to the same branch name (two projects on one repository) each
 * have their own, and one job's end deletes only its own.
 */
export const localBranch = (jobId: string): string => jobBranch(jobId);

/** A job's checkout: named by the job, not by its branch (branches are the clients' to name; `docs/update` and `docs-update` made one folder). */
export const jobCheckoutDir = (root: string, jobId: string): string => join(root, 'workspaces', `quire-${jobId}`);

/**
 * The lock a job's checkout is held by, from its opening until it is disposed of: the job's runs take turns in
 * the one folder, so a run that is still ending (taking back a push that raced a cancel) never removes the
 * checkout of the job's next run. Its holder renews it; one not renewed for a minute, about when another worker
 * claims the job of a process that died (QUIRE_JOB_LEASE_SECONDS), was left by that process.
 */
export const checkoutHold = (dir: string): string => `${dir}.lock`;
export const checkoutHoldStaleMs = 60_000;

/** Removes a job's checkout and its branch from the mirror (a workspace disposed of, or an early checkout not kept). */
export async function discardWorktree(mirror: string, dir: string, jobId: string): Promise<void> {
  await removeWorktree(mirror, dir);
  await runGit(['branch', '--quiet', '-D', localBranch(jobId)], { cwd: mirror }).catch(() => undefined);
}

/** Clears what a crashed run of the same job may have left behind. */
export async function removeWorktree(mirror: string, dir: string): Promise<void> {
  await runGit(['worktree', 'remove', '--force', '--force', dir], { cwd: mirror }).catch(() => undefined);
  await rm(dir, { recursive: true, force: true });
  await runGit(['worktree', 'prune'], { cwd: mirror });
}
