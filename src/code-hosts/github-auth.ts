import { createAppAuth } from '@octokit/auth-app';
import { Octokit } from '@octokit/rest';
import type { Config } from '../config/config.ts';
import { explainGithubError } from './github-errors.ts';
import { CodeHostError } from './types.ts';

export const silentLog = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };

/** The GitHub REST base: GITHUB_API_URL, else api.github.com for github.com and /api/v3 on Enterprise Server. */
export function githubApiUrl(config: Config): string {
  if (config.githubApiUrl) return config.githubApiUrl;
  return new URL(config.githubServerUrl).hostname === 'github.com' ? 'https://api.github.com' : `${config.githubServerUrl}/api/v3`;
}

/** Hands out a token that reaches the repository `owner/name`. */
export type TokenSource = (ownerAndName: string) => Promise<string>;

/** A client of the server's GitHub App (GITHUB_APP_ID, GITHUB_APP_PRIVATE_KEY), or null when none is configured. */
export function githubAppClient(config: Config): Octokit | null {
  if (!config.githubAppId || !config.githubAppPrivateKey) return null;
  return new Octokit({
    baseUrl: githubApiUrl(config),
    log: silentLog,
    userAgent: 'quire',
    authStrategy: createAppAuth,
    auth: { appId: config.githubAppId, privateKey: config.githubAppPrivateKey },
  });
}

/**
 * The server-wide credentials: GITHUB_TOKEN, or an installation token of the GitHub App.
 * The App's installation is looked up per repository (an App may be installed on several
 * organizations); `@octokit/auth-app` caches installation tokens and renews them before they expire.
 */
export function githubTokens(config: Config): TokenSource {
  const appOctokit = githubAppClient(config);
  if (appOctokit) {
    const installations = new Map<string, number>();
    return async (ownerAndName) => {
      const [owner, repo] = ownerAndName.split('/');
      try {
        let installationId = installations.get(ownerAndName);
        if (installationId === undefined) {
          const { data } = await appOctokit.rest.apps.getRepoInstallation({ owner, repo });
          installationId = data.id;
          installations.set(ownerAndName, installationId);
        }
        return await installationToken(appOctokit, installationId);
      } catch (error) {
        throw explainGithubError(
          error,
          `find the GitHub App's installation on ${ownerAndName}`,
          'install the App on the repository and grant it Contents and Pull requests: read and write',
        );
      }
    };
  }
  if (config.githubToken) {
    const token = config.githubToken;
    return async () => token;
  }
  return async () => {
    throw new CodeHostError('No GitHub credentials are configured: set GITHUB_TOKEN, or GITHUB_APP_ID and GITHUB_APP_PRIVATE_KEY.');
  };
}

export async function installationToken(appOctokit: Octokit, installationId: number): Promise<string> {
  const authentication = (await appOctokit.auth({ type: 'installation', installationId })) as { token: string };
  return authentication.token;
}
