import { resolve } from 'node:path';
import { stagedChangeBytes } from './change-size.ts';
import { stagedChanges, textAtBase } from './changes.ts';
import { checkOut, checkoutHold, checkoutHoldStaleMs, discardWorktree, jobCheckoutDir, localBranch } from './checkout.ts';
import { createWorkspaceFiles } from './files.ts';
import { explainGitError } from './git-errors.ts';
import { runGit, type GitOptions } from './git.ts';
import { acquireLock, withLock } from './lock.ts';
import { mirrorPath, normalizeRepository } from './mirror.ts';
import { CheckoutHeldError, WorkspaceGitError, type ChangeDiff, type CommitAuthor, type Workspace, type WorkspaceOptions } from './types.ts';

/**
 * Opens a job's workspace: refreshes the repository's cached mirror, then checks out the job branch
 * as a `git worktree` of it under `<root>/workspaces/quire-<job id>`. The worktree shares the mirror's objects, so
 * a second job on a repository downloads only what changed. A branch that already exists on the
 * remote (a follow-up) is continued; otherwise it starts at `ref` or the default branch. While an earlier
 * run of the job still holds the checkout (a cancelled run taking its push back), or an admin MCP session on the
 * job's branch, this waits until it is disposed of, or until `signal` aborts (a `CheckoutHeldError` whose cause is
 * the signal's reason).
 */
export async function openWorkspace(options: WorkspaceOptions): Promise<Workspace> {
  if (!/^[A-Za-z0-9][A-Za-z0-9._/-]*$/.test(options.branch) || options.branch.includes('..')) {
    throw new WorkspaceGitError(`"${options.branch}" is not a usable branch name; use letters, digits, ".", "_", "-" and "/".`);
  }
  const repository = normalizeRepository(options.repository);
  const root = resolve(options.root);
  const mirror = mirrorPath(root, repository);
  if (!/^[A-Za-z0-9_]+$/.test(options.jobId)) throw new WorkspaceGitError(`"${options.jobId}" is not a job id.`);
  // A checkout found in place is cleared for the job that opens it.
  const dir = jobCheckoutDir(root, options.jobId);
  const git: GitOptions & { repository: string } = { cwd: mirror, repository, credentials: options.credentials, signal: options.signal };
  const lock = `${mirror}.lock`;

  const hold = await acquireLock(checkoutHold(dir), { signal: options.signal, staleAfterMs: checkoutHoldStaleMs }).catch((error: unknown) => {
    if (!options.signal?.aborted) throw error;
    throw new CheckoutHeldError(
      `Job ${options.jobId}'s checkout was still held, by an earlier run of the job or an admin MCP session, when this run stopped waiting for it.`,
      { cause: error },
    );
  });
  const { baseBranch, baseCommit, remoteBefore } = await withLock(lock, () => checkOut(mirror, dir, options, git), options.signal).catch(
    async (error: unknown) => {
      await hold.release();
      throw error;
    },
  );
  // A run whose process stalled for longer than the hold may go unrenewed lost the checkout to the job's next run,
  // which checked out over it: it writes, commits and pushes nothing more there, and leaves it to that run.
  const stillHeld = async () => {
    if (!(await hold.held())) {
      throw new WorkspaceGitError(
        `Another run of job ${options.jobId} took over its checkout while this run was stalled (it did not renew its hold for a minute); this run changes nothing more.`,
      );
    }
  };
  const files = createWorkspaceFiles(dir);

  const inWorkspace = { ...git, cwd: dir };
  // Where the job branch left the base: the base branch may have moved on since earlier runs.
  const mergeBase = async () => (await runGit(['merge-base', baseCommit, 'HEAD'], inWorkspace)).trim();
  /** Files with line counts and the unified diff of `git diff <range>`. */
  const diffBetween = async (range: string[]): Promise<ChangeDiff> => {
    const numstat = await runGit(['diff', '--numstat', '--no-renames', ...range], inWorkspace);
    const files = numstat
      .split('\n')
      .filter(Boolean)
      .map((line) => {
        const [added, removed, ...path] = line.split('\t');
        return { path: path.join('\t'), added: added === '-' ? null : Number(added), removed: removed === '-' ? null : Number(removed) };
      });
    const patch = await runGit(['diff', '--no-color', '--no-ext-diff', '--no-renames', ...range], inWorkspace);
    return { files, patch };
  };
  let disposed: Promise<void> | null = null;
  return {
    dir,
    baseBranch,
    files: {
      ...files,
      write: (path, content) => stillHeld().then(() => files.write(path, content)),
      remove: (path) => stillHeld().then(() => files.remove(path)),
      move: (from, to) => stillHeld().then(() => files.move(from, to)),
    },
    async commitAll(message: string, author: CommitAuthor) {
      await stillHeld();
      await runGit(['add', '--all'], inWorkspace);
      const staged = await runGit(['diff', '--cached', '--name-only'], inWorkspace);
      if (staged.trim() === '') return false;
      const identity = { GIT_AUTHOR_NAME: author.name, GIT_AUTHOR_EMAIL: author.email, GIT_COMMITTER_NAME: author.name, GIT_COMMITTER_EMAIL: author.email };
      await runGit(['-c', 'commit.gpgSign=false', 'commit', '--quiet', '--no-verify', '--message', message], { ...inWorkspace, environment: identity });
      return true;
    },
    async hasChangesAgainstBase() {
      const changed = await runGit(['diff', '--name-only', '--no-renames', await mergeBase(), 'HEAD'], inWorkspace);
      return changed.trim() !== '';
    },
    async changeBytes() {
      await runGit(['add', '--all'], inWorkspace);
      return stagedChangeBytes(inWorkspace, await mergeBase());
    },
    async changedFiles() {
      await runGit(['add', '--all'], inWorkspace);
      return stagedChanges(inWorkspace, await mergeBase());
    },
    async readBase(path: string, maxBytes: number) {
      return textAtBase(inWorkspace, await mergeBase(), path, maxBytes);
    },
    async push() {
      await stillHeld();
      try {
        await runGit(['push', '--quiet', 'origin', `refs/heads/${localBranch(options.jobId)}:refs/heads/${options.branch}`], inWorkspace);
      } catch (error) {
        throw explainGitError(error, 'push', repository, options.branch);
      }
    },
    async diffAgainstBase() {
      return diffBetween([await mergeBase(), 'HEAD']);
    },
    async stagedDiff() {
      await runGit(['add', '--all'], inWorkspace);
      return diffBetween(['--cached', await mergeBase()]);
    },
    async hasUncommittedChanges() {
      return (await runGit(['status', '--porcelain', '--untracked-files=all'], inWorkspace)).trim() !== '';
    },
    // Bounded by its own time limit, not the job's signal: the cancel it answers aborted that. The job's next run
    // waits for it, holding off until this run is disposed of (checkoutHold).
    async retractPush() {
      if (!(await hold.held())) return;
      const pushed = (await runGit(['rev-parse', 'HEAD'], { cwd: dir })).trim();
      const target = remoteBefore ? `+${remoteBefore}:refs/heads/${options.branch}` : `:refs/heads/${options.branch}`;
      const lease = `--force-with-lease=refs/heads/${options.branch}:${pushed}`;
      await runGit(['push', '--quiet', lease, 'origin', target], { ...inWorkspace, signal: AbortSignal.timeout(60_000) }).catch(() => undefined);
    },
    dispose() {
      disposed ??= (async () => {
        try {
          if (await hold.held()) await withLock(lock, () => discardWorktree(mirror, dir, options.jobId));
        } finally {
          await hold.release();
        }
      })();
      return disposed;
    },
  };
}
