import { Octokit } from '@octokit/rest';
import type { OpenedConnection } from '../accounts/connections.ts';
import type { Config } from '../config/config.ts';
import { githubApiUrl, githubAppClient, githubTokens, installationToken, silentLog } from './github-auth.ts';
import { explainGithubError } from './github-errors.ts';
import { githubHost } from './github.ts';
import { repositoryPath } from './repository-path.ts';
import { CodeHostError, type CodeHostProvider } from './types.ts';

const noApp = 'this server has no GitHub App: the operator sets GITHUB_APP_ID and GITHUB_APP_PRIVATE_KEY, and the organization installs that App';

/**
 * GitHub with the credentials an organization connected: its own token, which must reach the
 * repository (`GET /repos/{owner}/{repo}`), or its installation of the server's GitHub App, whose
 * repositories (`GET /installation/repositories`) are the only ones its projects may name.
 */
export const githubProvider: CodeHostProvider = {
  name: 'github',
  label: 'GitHub',
  connectionKinds: ['github-token', 'github-app'],
  serverCredentialsMissing: (config) =>
    config.githubToken || (config.githubAppId && config.githubAppPrivateKey)
      ? null
      : 'set GITHUB_TOKEN, or GITHUB_APP_ID and GITHUB_APP_PRIVATE_KEY for a GitHub App',
  withServerCredentials: (config) => githubHost(config, githubTokens(config)),
  async withConnection(config, connection, repository) {
    const ownerAndName = repositoryPath(repository, config.githubServerUrl);
    const token = connection.kind === 'github-app' ? await appInstallationToken(config, connection) : connection.token!;
    const octokit = new Octokit({ baseUrl: githubApiUrl(config), auth: token, log: silentLog, userAgent: 'quire' });
    const reachable = connection.kind === 'github-app' ? await installationHas(octokit, ownerAndName) : await tokenReaches(octokit, ownerAndName);
    if (!reachable) {
      const holder = connection.kind === 'github-app' ? `installation ${connection.installationId}` : `the token of ${connection.account}`;
      throw new CodeHostError(`${ownerAndName} is not among the repositories ${holder} can reach on GitHub.`);
    }
    return githubHost(config, async () => (connection.kind === 'github-app' ? appInstallationToken(config, connection) : token));
  },
};

async function appInstallationToken(config: Config, connection: OpenedConnection): Promise<string> {
  const app = githubAppClient(config);
  if (!app) throw new CodeHostError(`The organization connected GitHub App installation ${connection.installationId}, but ${noApp}.`);
  try {
    return await installationToken(app, connection.installationId!);
  } catch (error) {
    throw explainGithubError(
      error,
      `get a token of GitHub App installation ${connection.installationId}`,
      'check that the App is still installed, or connect the installation again',
    );
  }
}

async function tokenReaches(octokit: Octokit, ownerAndName: string): Promise<boolean> {
  const [owner, repo] = ownerAndName.split('/');
  try {
    await octokit.rest.repos.get({ owner, repo });
    return true;
  } catch (error) {
    if ((error as { status?: number }).status === 404) return false;
    throw explainGithubError(error, `look up ${ownerAndName}`, 'the token needs read access to the repository');
  }
}

async function installationHas(octokit: Octokit, ownerAndName: string): Promise<boolean> {
  try {
    const repositories = await octokit.paginate(octokit.rest.apps.listReposAccessibleToInstallation, { per_page: 100 });
    return repositories.some((repository) => repository.full_name.toLowerCase() === ownerAndName.toLowerCase());
  } catch (error) {
    throw explainGithubError(error, 'list the repositories of the GitHub App installation', 'check that the App is still installed');
  }
}

/** Checks new credentials and names the account they act as (shown in listings; never the token). */
export async function identifyGithub(
  config: Config,
  connection: { kind: 'github-token' | 'github-app'; token?: string; installationId?: number },
): Promise<string> {
  const baseUrl = githubApiUrl(config);
  if (connection.kind === 'github-token') {
    try {
      const { data } = await new Octokit({ baseUrl, auth: connection.token, log: silentLog, userAgent: 'quire' }).rest.users.getAuthenticated();
      return data.login;
    } catch (error) {
      throw explainGithubError(error, 'check the token', 'use a personal or fine-grained token of an account that can reach your repositories');
    }
  }
  const app = githubAppClient(config);
  if (!app) throw new CodeHostError(`GitHub App installations cannot be connected: ${noApp}.`);
  try {
    const { data } = await app.rest.apps.getInstallation({ installation_id: connection.installationId! });
    const account = data.account && 'login' in data.account ? data.account.login : (data.account?.name ?? 'unknown account');
    return `${account} (installation ${data.id})`;
  } catch (error) {
    throw explainGithubError(
      error,
      `find installation ${connection.installationId} of the server's GitHub App`,
      'install the App on your GitHub account or organization and give its installation id',
    );
  }
}
