import { randomBytes } from 'node:crypto';
import { mkdir, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { ReadableFiles } from '../lib/readable-files.ts';
import { changesBetween, type CommitChanges } from './changes.ts';
import { displayRepository, explainGitError } from './git-errors.ts';
import { runGit, type GitOptions } from './git.ts';
import { symbolicLinks } from './links.ts';
import { withLock } from './lock.ts';
import { carriesChange, containsCommit, defaultBranch, mirrorPath, normalizeRepository, refreshMirror, resolveRef } from './mirror.ts';
import { createReadableFiles } from './readable-files.ts';
import { holdLease, leasePath } from './snapshot-lease.ts';
import { WorkspaceGitError, type GitCredentials } from './types.ts';
import { removeWorktree } from './workspace.ts';

export interface SnapshotOptions {
  /** Repository URL (https://, file://) or absolute path. */
  repository: string;
  /** Branch, tag or commit id; null takes the remote's default branch. */
  ref: string | null;
  /** Folder for snapshots and repository mirrors (under QUIRE_DATA_DIR). */
  root: string;
  /** Sent through git's environment only, never written to `.git/config`. */
  credentials?: GitCredentials;
  signal?: AbortSignal;
}

/** A repository's files at one commit, read-only, for as long as it is not disposed of. */
export interface Snapshot {
  /** Absolute path of the snapshot's files. */
  dir: string;
  /** The ref it was taken at: `ref`, or the default branch when that was null. */
  ref: string;
  /** The commit it holds, as a full id. */
  commit: string;
  /** Every path confined to the snapshot, as a job's checkout confines them. */
  files: ReadableFiles;
  /** Paths of the symbolic links it holds (whether they lead inside or out; see `files` for which are read). */
  symbolicLinks(): Promise<string[]>;
  /** The files changed from `commit` (an earlier build's) to this snapshot's commit. */
  changedSince(commit: string): Promise<CommitChanges>;
  /** The commit a branch, tag or commit id names in the repository's mirror as fetched for this snapshot, or null. */
  commitOf(ref: string): Promise<string | null>;
  /** Whether this snapshot's commit contains `commit` (it is the snapshot's or one of its ancestors); false for a commit the mirror lacks. */
  contains(commit: string): Promise<boolean>;
  /**
   * Whether this snapshot's commit carries the change `commit` made since it forked from it: every file
   * that change touched is, in the snapshot, as in `commit`. A squash or rebase merge leaves no
   * ancestor to find, but carries the change so. False for an empty change or a commit the mirror lacks.
   */
  carries(commit: string): Promise<boolean>;
  /** Removes the snapshot; calling it again does nothing. */
  dispose(): Promise<void>;
}

/**
 * Takes a snapshot: fetches the repository's mirror, then adds a detached worktree of it at the ref's
 * commit under `<root>/snapshots/`. Like a job's checkout it shares the mirror's objects and is made
 * and removed under the mirror's lock; unlike one it has no branch and nothing writes to it. While
 * open it holds a lease (snapshot-lease.ts), so the sweeper removes it only once its process is gone.
 */
export async function openSnapshot(options: SnapshotOptions): Promise<Snapshot> {
  const repository = normalizeRepository(options.repository);
  const root = resolve(options.root);
  const mirror = mirrorPath(root, repository);
  const git: GitOptions & { repository: string } = { cwd: mirror, repository, credentials: options.credentials, signal: options.signal };
  const lock = `${mirror}.lock`;
  let dir = '';
  let releaseLease = () => {};

  const { ref, commit } = await withLock(
    lock,
    async () => {
      await refreshMirror(mirror, git);
      const ref = options.ref ?? (await defaultBranch(mirror, git));
      const commit = await resolveRef(mirror, ref);
      if (!commit)
        throw new WorkspaceGitError(`Branch or ref "${ref}" does not exist in ${displayRepository(repository)}; choose an existing branch, tag or commit.`);
      dir = join(root, 'snapshots', `${commit.slice(0, 12)}-${randomBytes(6).toString('hex')}`);
      await mkdir(join(root, 'snapshots'), { recursive: true });
      // The lease comes first: a sweep that sees the worktree also sees that it is in use.
      releaseLease = await holdLease(dir);
      try {
        await runGit(['worktree', 'add', '--quiet', '--detach', dir, commit], git);
      } catch (error) {
        releaseLease();
        await removeSnapshot(mirror, dir);
        throw explainGitError(error, 'fetch', repository);
      }
      return { ref, commit };
    },
    options.signal,
  );

  let disposed: Promise<void> | null = null;
  return {
    dir,
    ref,
    commit,
    files: createReadableFiles(dir),
    symbolicLinks: () => symbolicLinks(dir),
    changedSince: (earlier) => changesBetween({ cwd: mirror }, earlier, commit),
    commitOf: (name) => resolveRef(mirror, name),
    contains: (ancestor) => containsCommit(mirror, ancestor, commit),
    carries: (change) => carriesChange(mirror, change, commit),
    dispose() {
      releaseLease();
      disposed ??= withLock(lock, () => removeSnapshot(mirror, dir));
      return disposed;
    },
  };
}

/** Removes a snapshot's worktree and its lease; the caller holds the mirror's lock. */
export async function removeSnapshot(mirror: string, dir: string): Promise<void> {
  await removeWorktree(mirror, dir);
  await rm(leasePath(dir), { force: true });
}
