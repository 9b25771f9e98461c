import { resolveAccess } from '../../../code-hosts/access.ts';
import type { Config } from '../../../config/config.ts';
import type { Storage } from '../../../storage/dialect.ts';
import type { ProjectRow } from '../../../storage/tables/accounts.ts';
import { remoteCommit } from '../../../workspace/remote-commit.ts';
import { openCommitTree, type CommitTree } from '../../../workspace/commit-tree.ts';
import type { RepositoryAtRef } from '../../../workspace/types.ts';

/** How builds reach repositories; tests pass their own to count or fail them. */
export interface SourceAccess {
  /** The ref's commit as a tree of git objects: a build reads only the blobs it needs, nothing is checked out. */
  openTree(options: RepositoryAtRef): Promise<CommitTree>;
  remoteCommit(options: RepositoryAtRef): Promise<string | null>;
}

export const gitSource: SourceAccess = { openTree: openCommitTree, remoteCommit };

/**
 * Where the project's docs come from, as a job's checkout reaches its repository: the organization
 * must still be allowed the repository (a grant revoked or a connection removed stops its builds),
 * with the code host's credentials passed to git through its environment only.
 */
export async function repositoryAtRef(
  storage: Storage,
  config: Config,
  project: ProjectRow & { repository: string },
  signal?: AbortSignal,
): Promise<RepositoryAtRef> {
  const { host, repository } = await resolveAccess(storage.db, config, project.org_id, project.repository);
  const credentials = await host.gitCredentials(repository);
  return { repository, ref: project.ref, root: config.dataDir, credentials, signal };
}

/** The docs folder of a project as `readSite` takes it: '' for the repository root. */
export function docsPathOf(project: Pick<ProjectRow, 'docs_path'>): string {
  return (project.docs_path ?? '').replace(/^\.?\/+|\/+$/g, '').replace(/^\.$/, '');
}
