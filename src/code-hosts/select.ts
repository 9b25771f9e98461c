import type { Config } from '../server/config.ts';
import { displayRepository } from '../workspace/git-errors.ts';
import { githubHost } from './github.ts';
import { gitlabHost } from './gitlab.ts';
import { localHost, localRepositoryPath } from './local.ts';
import { isUnder } from './repository-path.ts';
import { CodeHostError, type CodeHost } from './types.ts';

/**
 * The code host of a project's repository, chosen by its address: under GITHUB_SERVER_URL is GitHub,
 * under GITLAB_URL is GitLab, a path or file:// URL is a local repository.
 */
export function codeHostFor(repository: string, config: Config): CodeHost {
  if (localRepositoryPath(repository)) return localHost(config);
  if (isUnder(repository, config.githubServerUrl)) return githubHost(config);
  if (isUnder(repository, config.gitlabUrl)) return gitlabHost(config);
  throw new CodeHostError(
    `${displayRepository(repository)} is on neither GitHub (${config.githubServerUrl}) nor GitLab (${config.gitlabUrl ?? 'GITLAB_URL is unset'}): set GITHUB_SERVER_URL or GITLAB_URL to its server, or use a local path.`,
  );
}
