import { Octokit } from '@octokit/rest';
import type { Config } from '../config/config.ts';
import { githubApiUrl, silentLog, type TokenSource } from './github-auth.ts';
import { explainGithubError } from './github-errors.ts';
import { repositoryPath } from './repository-path.ts';
import type { CodeHost, PullRequest, PullRequestRequest } from './types.ts';

const permissions = 'the token needs Contents and Pull requests: read and write (classic tokens: the repo scope)';

/**
 * GitHub and GitHub Enterprise Server: the branch is pushed with git, the pull request opened over
 * REST, both with the token `tokenFor` hands out (the organization's connection or the server's).
 */
export function githubHost(config: Config, tokenFor: TokenSource): CodeHost {
  const baseUrl = githubApiUrl(config);
  const client = async (ownerAndName: string) => new Octokit({ baseUrl, auth: await tokenFor(ownerAndName), log: silentLog, userAgent: 'quire' });

  return {
    name: 'github',
    async gitCredentials(repository) {
      return { username: 'x-access-token', password: await tokenFor(repositoryPath(repository, config.githubServerUrl)) };
    },
    async openOrUpdatePullRequest(request) {
      const ownerAndName = repositoryPath(request.repository, config.githubServerUrl);
      const [owner, repo] = ownerAndName.split('/');
      const octokit = await client(ownerAndName);
      if (request.existingNumber) return update(octokit, owner, repo, request.existingNumber, request);
      try {
        const { data } = await octokit.rest.pulls.create({
          owner,
          repo,
          head: request.branch,
          base: request.base,
          title: request.title,
          body: request.body,
          draft: request.draft ?? false,
        });
        return { number: data.number, url: data.html_url, draft: data.draft ?? request.draft ?? false };
      } catch (error) {
        // A run that crashed after opening the pull request left it behind: reuse it.
        const existing = (error as { status?: number }).status === 422 ? await findOpen(octokit, owner, repo, request.branch) : null;
        if (existing === null) throw explainGithubError(error, `open a pull request on ${ownerAndName}`, permissions);
        return update(octokit, owner, repo, existing, request);
      }
    },
  };
}

async function update(octokit: Octokit, owner: string, repo: string, number: number, request: PullRequestRequest): Promise<PullRequest> {
  try {
    const { data } = await octokit.rest.pulls.update({ owner, repo, pull_number: number, title: request.title, body: request.body });
    // An update leaves the draft state as it was: a draft stays one until someone marks it ready.
    return { number: data.number, url: data.html_url, ...(data.draft === undefined ? {} : { draft: data.draft }) };
  } catch (error) {
    throw explainGithubError(error, `update pull request #${number} on ${owner}/${repo}`, permissions);
  }
}

async function findOpen(octokit: Octokit, owner: string, repo: string, branch: string): Promise<number | null> {
  const { data } = await octokit.rest.pulls.list({ owner, repo, head: `${owner}:${branch}`, state: 'open', per_page: 1 }).catch(() => ({ data: [] }));
  return data[0]?.number ?? null;
}
