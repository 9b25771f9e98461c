import { FileAccessError, type ReadableFiles } from '../lib/readable-files.ts';

/**
 * What the agent and the job runner use of a job's workspace. The agent's tools never touch the
 * file system directly: every path goes through `WorkspaceFiles`, which confines it to the checkout.
 */

/** Credentials for git over HTTPS. Never written to `.git/config`, logs or the transcript. */
export interface GitCredentials {
  username: string;
  password: string;
}

export interface CommitAuthor {
  name: string;
  email: string;
}

export interface WorkspaceOptions {
  /** Repository URL (https://, file://) or absolute path. */
  repository: string;
  /** Branch or ref to start from; null uses the remote's default branch. */
  ref: string | null;
  /** Branch the job works on (`quire/<job id>`); reused when it exists on the remote (follow-ups). */
  branch: string;
  /**
   * The job the checkout is for: it names the checkout's folder (`workspaces/quire-<job id>`), so two jobs
   * never share one, whatever their branches are called (in one organization or two).
   */
  jobId: string;
  /** The branch must not exist on the remote yet (a branch the create request named, at the job's first run). */
  newBranch?: boolean;
  /** Folder for workspaces and repository mirrors (under QUIRE_DATA_DIR). */
  root: string;
  credentials?: GitCredentials;
  signal?: AbortSignal;
}

/** A repository at one ref, as docs builds read it (commit-tree.ts) and poll it (remote-commit.ts). */
export interface RepositoryAtRef {
  /** Repository URL (https://, file://) or absolute path. */
  repository: string;
  /** Branch, tag or commit id; null takes the remote's default branch. */
  ref: string | null;
  /** Folder for repository mirrors (under QUIRE_DATA_DIR). */
  root: string;
  /** Sent through git's environment only, never written to `.git/config`. */
  credentials?: GitCredentials;
  signal?: AbortSignal;
}

export interface ChangeDiff {
  /** Lines added and removed per file; null counts for binary files. */
  files: { path: string; added: number | null; removed: number | null }[];
  /** `git diff` output. */
  patch: string;
}

/**
 * File access confined to one workspace: reads as `ReadableFiles` (paths relative to the workspace
 * root; `..`, absolute paths, symlinks leaving the workspace and anything under `.git/` are refused
 * with a `WorkspacePathError` whose message the model can act on), and the writes a job makes.
 */
export interface WorkspaceFiles extends ReadableFiles {
  write(path: string, content: string): Promise<void>;
  remove(path: string): Promise<void>;
  move(from: string, to: string): Promise<void>;
}

/** A file a change adds, modifies or deletes: a job's against the base it started from, or between two commits. */
export interface ChangedFile {
  path: string;
  status: 'added' | 'modified' | 'deleted';
}

export interface Workspace {
  /** Absolute path of the checkout. */
  dir: string;
  files: WorkspaceFiles;
  /** Commits every change; returns false when there was nothing to commit. */
  commitAll(message: string, author: CommitAuthor): Promise<boolean>;
  /** Whether the job branch differs from the base it started from (changes of earlier runs count). */
  hasChangesAgainstBase(): Promise<boolean>;
  /**
   * Stages every change and returns the bytes of the files added or modified against the base,
   * committed by earlier runs or not (files only moved do not count).
   */
  changeBytes(): Promise<number>;
  /** Stages every change and lists the files added, modified or deleted against the base (earlier runs' commits included). */
  changedFiles(): Promise<ChangedFile[]>;
  /** A file's text as the base had it, or null when it did not exist there or is larger than `maxBytes`. */
  readBase(path: string, maxBytes: number): Promise<string | null>;
  /** Pushes the job branch to the remote. */
  push(): Promise<void>;
  /** The committed change of the job branch against where it left the base: files with line counts, and the unified diff. */
  diffAgainstBase(): Promise<ChangeDiff>;
  /** Stages every change and returns the whole change against the base, edits not yet committed included (see `diffAgainstBase`). */
  stagedDiff(): Promise<ChangeDiff>;
  /** Whether the checkout holds edits not yet committed. */
  hasUncommittedChanges(): Promise<boolean>;
  /**
   * Puts the remote job branch back where it was before `push` (deletes it when it was new), unless
   * someone else moved it since. For a push that raced a cancel; works after the job's signal aborted.
   */
  retractPush(): Promise<void>;
  /** The branch the job started from (resolved default branch when `ref` was null). */
  baseBranch: string;
  /**
   * Removes the checkout, then lets the job's next run open it; calling it again does nothing. A run whose hold
   * another run took over (it stalled for a minute) leaves the checkout to that run.
   */
  dispose(): Promise<void>;
}

/** A path or file operation the workspace refuses; a `FileAccessError`, so readers that know only `ReadableFiles` can explain it. */
export class WorkspacePathError extends FileAccessError {
  override name = 'WorkspacePathError';
}

/**
 * A git operation failed (missing repository or ref, refused credentials, push rejected). The message
 * says what to do next and never contains credentials, so it can become a job's `error`.
 */
export class WorkspaceGitError extends Error {
  override name = 'WorkspaceGitError';
}

/**
 * The wait for a job's checkout stopped (its signal aborted) while another holder still had it: an earlier run of
 * the job, or an admin MCP session on the job's branch.
 */
export class CheckoutHeldError extends WorkspaceGitError {}
