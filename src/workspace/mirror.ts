import { createHash } from 'node:crypto';
import { access, appendFile, mkdir } from 'node:fs/promises';
import { isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { trimTrailingSlashes } from '../lib/trim.ts';
import { displayRepository } from '../lib/display-repository.ts';
import { explainGitError } from './git-errors.ts';
import { runGit, type GitOptions } from './git.ts';
import { WorkspaceGitError } from './types.ts';

/** Local repositories are used by absolute path, so `file:///srv/docs` and `/srv/docs` share a mirror. */
export function normalizeRepository(repository: string): string {
  if (repository.startsWith('file://')) return fileURLToPath(repository);
  if (isAbsolute(repository)) return resolve(repository);
  return trimTrailingSlashes(repository);
}

/** One bare repository per remote URL, shared by every job on that repository. */
export function mirrorPath(root: string, repository: string): string {
  const hash = createHash('sha256').update(repository).digest('hex').slice(0, 32);
  return join(root, 'mirrors', hash);
}

/**
 * Creates the mirror on first use and fetches every branch and tag into it. Branches land under
 * `refs/remotes/origin/` so that the mirror's own `refs/heads/` stay free for job worktrees, which a
 * fetch must never overwrite. Over HTTP(S) the mirror is a partial clone (`blob:none`): file contents
 * are downloaded when a checkout needs them, and a host that does not support filters simply sends
 * everything.
 */
export async function refreshMirror(dir: string, git: GitOptions & { repository: string }): Promise<void> {
  const options = { ...git, cwd: dir };
  if (!(await exists(join(dir, 'HEAD')))) await createMirror(dir, git);
  try {
    await runGit(['fetch', '--quiet', '--prune', '--no-write-fetch-head', 'origin'], options);
  } catch (error) {
    throw explainGitError(error, 'fetch', git.repository);
  }
}

/**
 * A new bare mirror of `git.repository`. Its fixed settings are appended as git-config(1) text: one
 * `git config` process per setting cost more than the first fetch of a small repository. The URL,
 * which comes from the project, is set by `git config`, which escapes it.
 */
async function createMirror(dir: string, git: GitOptions & { repository: string }): Promise<void> {
  const options = { ...git, cwd: dir };
  const partial = /^https?:/i.test(git.repository);
  // Any part of the data directory made here (all of it, on PostgreSQL) is the service user's alone.
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await runGit(['init', '--quiet', '--bare'], options);
  const settings = [
    ...(partial ? ['[extensions]', '\tpartialClone = origin'] : []),
    '[remote "origin"]',
    '\tfetch = +refs/heads/*:refs/remotes/origin/*',
    '\tfetch = +refs/tags/*:refs/tags/*',
    ...(partial ? ['\tpromisor = true', '\tpartialCloneFilter = blob:none'] : []),
    // No garbage collection on its own, nor the `git maintenance run --auto` process that a fetch, a commit
    // and each lazy fetch of missing blobs would otherwise start only to find nothing to do.
    '[gc]',
    '\tauto = 0',
    '[maintenance]',
    '\tauto = false',
  ];
  await appendFile(join(dir, 'config'), `${settings.join('\n')}\n`);
  await runGit(['config', 'remote.origin.url', git.repository], options);
  // Extensions need format version 1, which `git init` does not write.
  if (partial) await runGit(['config', 'core.repositoryformatversion', '1'], options);
}

/** The remote's default branch (its HEAD), for projects without a ref. */
export async function defaultBranch(dir: string, git: GitOptions & { repository: string }): Promise<string> {
  let output: string;
  try {
    output = await runGit(['ls-remote', '--symref', 'origin', 'HEAD'], { ...git, cwd: dir });
  } catch (error) {
    throw explainGitError(error, 'fetch', git.repository);
  }
  const match = /^ref: refs\/heads\/(\S+)\s+HEAD$/m.exec(output);
  if (!match)
    throw new WorkspaceGitError(`${displayRepository(git.repository)} has no default branch (is it empty?); push a first commit or set the project's ref.`);
  return match[1];
}

/** The commit `ref` names in the mirror: a branch, a tag or a commit id, or null when none exists. */
export async function resolveRef(dir: string, ref: string): Promise<string | null> {
  return (await resolveRefs(dir, ref, [])).commit;
}

/**
 * `ref` resolved as `resolveRef` does, and the commits of the remote's `branches` the mirror holds
 * (absent when it holds none): one git process, one more for a tag of a tag, and two more for a commit id.
 *
 * Only what the remote holds is resolved: its branches, its tags, and the full id of a commit one of them
 * reaches. The mirror is shared by every project on the repository, and it also holds the jobs' own branches
 * (`quire/<job id>`, commits not pushed yet) and their objects: `git rev-parse` alone would name those to anyone
 * who asks for that branch, or for an abbreviated id of one of their commits.
 */
export async function resolveRefs(dir: string, ref: string, branches: string[]): Promise<{ commit: string | null; branches: Map<string, string> }> {
  const candidates = [`refs/remotes/origin/${ref}`, `refs/tags/${ref}`];
  const commits = await refCommits(dir, [...candidates, ...branches.map((branch) => `refs/remotes/origin/${branch}`)]);
  let commit = candidates.map((name) => commits.get(name)).find((found) => found !== undefined) ?? null;
  if (commit === null && !ref.startsWith('-')) {
    // A tag of a tag is peeled to its commit here (for-each-ref peels one level); a commit id counts when the remote reaches it.
    const name = commitId.test(ref) ? ref : `refs/tags/${ref}`;
    const found = await runGit(['rev-parse', '--verify', '--quiet', '--end-of-options', `${name}^{commit}`], { cwd: dir }).then(
      (output) => output.trim(),
      () => null,
    );
    commit = found !== null && (name !== ref || (await reachedByRemote(dir, found))) ? found : null;
  }
  const found = new Map<string, string>();
  for (const branch of branches) {
    const branchCommit = commits.get(`refs/remotes/origin/${branch}`);
    if (branchCommit) found.set(branch, branchCommit);
  }
  return { commit, branches: found };
}

/** Whether one of the remote's branches or tags (as the mirror last fetched them) reaches `commit`. */
async function reachedByRemote(dir: string, commit: string): Promise<boolean> {
  const output = await runGit(['for-each-ref', '--count=1', '--format=%(refname)', `--contains=${commit}`, 'refs/remotes/origin/', 'refs/tags/'], {
    cwd: dir,
  }).catch(() => '');
  return output.trim() !== '';
}

/** The commit each of the full ref names `names` points to (through an annotated tag), for those that exist and point to one. */
async function refCommits(dir: string, names: string[]): Promise<Map<string, string>> {
  const format = '%(refname)%00%(objecttype)%00%(objectname)%00%(*objecttype)%00%(*objectname)';
  const output = await runGit(['for-each-ref', `--format=${format}`, ...names], { cwd: dir });
  const commits = new Map<string, string>();
  for (const line of output.split('\n')) {
    const [name, type, id, peeledType, peeledId] = line.split('\0');
    // A name also matches the refs below it (`main` matches `main/next`), and one with * or ? is a pattern: only exact names count.
    if (!names.includes(name)) continue;
    if (type === 'commit') commits.set(name, id);
    else if (peeledType === 'commit') commits.set(name, peeledId);
  }
  return commits;
}

export async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

const commitId = /^[0-9a-f]{40}([0-9a-f]{24})?$/i;

/** Whether `ancestor` is `commit` or an ancestor of it in the mirror (as a merge or a fast-forward leaves a branch's head). */
export function containsCommit(mirror: string, ancestor: string, commit: string): Promise<boolean> {
  if (!commitId.test(ancestor)) return Promise.resolve(false);
  return runGit(['merge-base', '--is-ancestor', ancestor, commit], { cwd: mirror }).then(
    () => true,
    () => false,
  );
}

/**
 * Whether `commit` of the mirror carries the change `change` made since it forked from it: every file that
 * change touched is, at `commit`, as in `change`. A squash or rebase merge leaves no ancestor to find, but
 * carries the change so. False for an empty change or a commit the mirror lacks.
 */
export async function carriesChange(mirror: string, change: string, commit: string): Promise<boolean> {
  if (!commitId.test(change)) return false;
  try {
    const fork = (await runGit(['merge-base', change, commit], { cwd: mirror })).trim();
    const files = (await runGit(['diff', '--name-only', '-z', '--no-renames', fork, change], { cwd: mirror })).split('\0').filter(Boolean);
    if (files.length === 0) return false;
    // Exit status 0: no difference between the change and `commit` in those files.
    await runGit(['diff', '--quiet', '--no-renames', change, commit, '--', ...files.map((file) => `:(literal)${file}`)], { cwd: mirror });
    return true;
  } catch {
    return false;
  }
}
