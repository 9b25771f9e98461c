import { runGit, type GitOptions } from './git.ts';
import type { ChangedFile } from './types.ts';

/**
 * The files the staged change adds, modifies or deletes against `base` (a commit). A moved file is a
 * deletion and an addition, which is what the docs checks need: the old path is gone, the new one is new.
 */
export async function stagedChanges(git: GitOptions, base: string): Promise<ChangedFile[]> {
  return parseNameStatus(await runGit(['diff', '--cached', '--name-status', '-z', '--no-renames', base], git));
}

/** What changed between two commits: the files, or everything when the mirror no longer has the older one. */
export type CommitChanges = { everything: true } | { everything: false; files: ChangedFile[] };

/**
 * The files added, modified or deleted from commit `from` to commit `to`, as an incremental docs build
 * needs them (a move is a deletion and an addition). A commit the mirror does not have (the branch was
 * rewritten and the commit pruned, or `from` is no commit id) means everything changed. Only trees are
 * compared, which a partial mirror holds. One git process: `git diff` itself refuses a commit the
 * mirror lacks, which is the answer then (checking first with `git cat-file -e` cost a second process).
 */
export async function changesBetween(git: GitOptions, from: string, to: string): Promise<CommitChanges> {
  if (!/^[0-9a-f]{7,64}$/i.test(from)) return { everything: true };
  // Asking for an object a partial mirror lacks would make newer git fetch it; a missing commit is the answer here.
  const local = { ...git, environment: { ...git.environment, GIT_NO_LAZY_FETCH: '1' } };
  return runGit(['diff', '--name-status', '-z', '--no-renames', `${from}^{commit}`, to, '--'], local).then(
    (output) => ({ everything: false, files: parseNameStatus(output) }),
    () => ({ everything: true }),
  );
}

/** `git diff --name-status -z` output: "<status>\0<path>\0" per changed path. */
function parseNameStatus(output: string): ChangedFile[] {
  const fields = output.split('\0');
  const changes: ChangedFile[] = [];
  for (let index = 0; index + 1 < fields.length; index += 2) {
    const status = fields[index] === 'A' ? 'added' : fields[index] === 'D' ? 'deleted' : 'modified';
    changes.push({ path: fields[index + 1], status });
  }
  return changes;
}

/** A file's text at `base`, or null when it did not exist there or is larger than `maxBytes`. */
export async function textAtBase(git: GitOptions, base: string, path: string, maxBytes: number): Promise<string | null> {
  const object = `${base}:${path}`;
  const size = await runGit(['cat-file', '-s', object], git).then(
    (output) => Number(output.trim()),
    () => null,
  );
  if (size === null || size > maxBytes) return null;
  return runGit(['cat-file', 'blob', object], git);
}
