import { mkdir } from 'node:fs/promises';
import { resolve } from 'node:path';
import { explainGitError } from './git-errors.ts';
import { runGit } from './git.ts';
import { normalizeRepository } from './mirror.ts';
import type { RepositoryAtRef } from './types.ts';

const commitId = /^[0-9a-f]{40}([0-9a-f]{24})?$/i;

/**
 * The commit `ref` names on the remote now, or null when it names none: one `git ls-remote`, no fetch,
 * so polling a repository for changes costs a request and not a download. Resolved as commit trees
 * resolve it: a branch, else a tag (an annotated tag's commit), else a full commit id as it is.
 */
export async function remoteCommit(options: RepositoryAtRef): Promise<string | null> {
  const repository = normalizeRepository(options.repository);
  const root = resolve(options.root);
  // Any part of the data directory made here (all of it, on PostgreSQL) is the service user's alone.
  await mkdir(root, { recursive: true, mode: 0o700 });
  if (options.ref !== null && commitId.test(options.ref)) return options.ref.toLowerCase();
  // An annotated tag is listed twice: as the tag object, and peeled (`^{}`) as the commit it tags.
  const names = options.ref === null ? ['HEAD'] : [`refs/heads/${options.ref}`, `refs/tags/${options.ref}^{}`, `refs/tags/${options.ref}`];
  let output: string;
  try {
    output = await runGit(['ls-remote', '--end-of-options', repository, ...names], {
      cwd: root,
      repository,
      credentials: options.credentials,
      signal: options.signal,
    });
  } catch (error) {
    throw explainGitError(error, 'fetch', repository);
  }
  const commits = new Map(output.split('\n').map((line) => [line.split('\t')[1], line.split('\t')[0]] as const));
  return names.map((name) => commits.get(name)).find((commit) => commit !== undefined) ?? null;
}
