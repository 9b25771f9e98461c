import type { Config } from '../config/config.ts';
import { displayRepository } from '../lib/display-repository.ts';
import { githubProvider } from './github-provider.ts';
import { gitlabProvider } from './gitlab-provider.ts';
import { localProvider, localRepositoryPath } from './local.ts';
import { isUnder } from './repository-path.ts';
import { CodeHostError, type CodeHost, type CodeHostProvider } from './types.ts';

/**
 * The code host of a repository, chosen by its address: under GITHUB_SERVER_URL is GitHub, under
 * GITLAB_URL is GitLab, a path or file:// URL is a local repository.
 */
export function providerFor(repository: string, config: Config): CodeHostProvider {
  if (localRepositoryPath(repository)) return localProvider;
  if (isUnder(repository, config.githubServerUrl)) return githubProvider;
  if (isUnder(repository, config.gitlabUrl)) return gitlabProvider;
  // The servers' addresses as configured may hold credentials (https://user:token@…): this message reaches tenants.
  const gitlab = config.gitlabUrl === undefined ? 'GITLAB_URL is unset' : displayRepository(config.gitlabUrl);
  throw new CodeHostError(
    `${displayRepository(repository)} is on neither GitHub (${displayRepository(config.githubServerUrl)}) nor GitLab (${gitlab}): set GITHUB_SERVER_URL or GITLAB_URL to its server, or use a local path.`,
  );
}

/** The repository's code host acting with the server-wide credentials (no tenancy check: see access.ts). */
export function codeHostFor(repository: string, config: Config): CodeHost {
  return providerFor(repository, config).withServerCredentials(config);
}
