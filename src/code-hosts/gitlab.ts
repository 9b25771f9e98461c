import { Gitlab } from '@gitbeaker/rest';
import type { Config } from '../config/config.ts';
import { networkFailure } from '../lib/network-failure.ts';
import { repositoryPath } from './repository-path.ts';
import { CodeHostError, type CodeHost } from './types.ts';

const scopes = 'the token needs the api and write_repository scopes and at least the Developer role';

/**
 * GitLab (gitlab.com or self-managed at GITLAB_URL): merge requests instead of pull requests, with
 * `accessToken`, the organization's connected token or GITLAB_TOKEN.
 */
export function gitlabHost(config: Config, accessToken: string | undefined): CodeHost {
  const serverUrl = config.gitlabUrl as string;
  const token = (): string => {
    if (!accessToken) throw new CodeHostError('No GitLab token is configured: set GITLAB_TOKEN to an access token with the api and write_repository scopes.');
    return accessToken;
  };
  const api = () => new Gitlab({ host: serverUrl, token: token() });

  return {
    name: 'gitlab',
    async gitCredentials() {
      return { username: 'oauth2', password: token() };
    },
    async openOrUpdatePullRequest(request) {
      const project = repositoryPath(request.repository, serverUrl);
      const gitlab = api();
      const title = request.draft ? `Draft: ${request.title}` : request.title;
      try {
        // A run that crashed after opening the merge request left it behind: reuse it.
        const existing =
          request.existingNumber ?? (await gitlab.MergeRequests.all({ projectId: project, sourceBranch: request.branch, state: 'opened' }))[0]?.iid;
        if (existing) {
          const updated = await gitlab.MergeRequests.edit(project, existing, { title, description: request.body });
          return { number: updated.iid, url: updated.web_url, draft: Boolean(request.draft) };
        }
        const created = await gitlab.MergeRequests.create(project, request.branch, request.base, title, {
          description: request.body,
          removeSourceBranch: true,
        });
        return { number: created.iid, url: created.web_url, draft: Boolean(request.draft) };
      } catch (error) {
        const action = request.existingNumber ? `update merge request !${request.existingNumber} on ${project}` : `open a merge request on ${project}`;
        throw explainGitlabError(error, action);
      }
    },
  };
}

export function explainGitlabError(error: unknown, action: string): CodeHostError {
  const cause = (error as { cause?: { description?: string; response?: { status?: number } } }).cause;
  const status = cause?.response?.status;
  const said = cause?.description ? ` GitLab said: ${cause.description}.` : '';
  if (status === 401)
    return new CodeHostError(`GitLab did not accept the token while trying to ${action} (401): the token may be expired or revoked.${said}`, status);
  if (status === 403) return new CodeHostError(`GitLab refused to ${action} (403): ${scopes}.${said}`, status);
  if (status === 404)
    return new CodeHostError(`GitLab could not ${action} (404): the project does not exist or the token cannot see it; ${scopes}.${said}`, status);
  if (status !== undefined) return new CodeHostError(`GitLab could not ${action} (HTTP ${status}).${said}`, status);
  const unreachable = networkFailure(error);
  return new CodeHostError(`GitLab could not be reached to ${action}${unreachable ? ` (${unreachable})` : ''}; check GITLAB_URL and the network.`);
}
