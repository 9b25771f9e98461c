import { Gitlab } from '@gitbeaker/rest';
import type { Config } from '../config/config.ts';
import { explainGitlabError, gitlabHost } from './gitlab.ts';
import { repositoryPath } from './repository-path.ts';
import { CodeHostError, type CodeHostProvider } from './types.ts';

/** GitLab with an organization's own token, which must reach the project (`GET /projects/:id`). */
export const gitlabProvider: CodeHostProvider = {
  name: 'gitlab',
  label: 'GitLab',
  connectionKinds: ['gitlab'],
  serverCredentialsMissing: (config) => (config.gitlabToken ? null : 'set GITLAB_TOKEN'),
  withServerCredentials: (config) => gitlabHost(config, config.gitlabToken),
  async withConnection(config, connection, repository) {
    const project = repositoryPath(repository, config.gitlabUrl as string);
    try {
      await new Gitlab({ host: config.gitlabUrl as string, token: connection.token! }).Projects.show(project);
    } catch (error) {
      if ((error as { cause?: { response?: { status?: number } } }).cause?.response?.status === 404) {
        throw new CodeHostError(`${project} is not among the projects the token of ${connection.account} can reach on GitLab.`);
      }
      throw explainGitlabError(error, `look up ${project}`);
    }
    return gitlabHost(config, connection.token!);
  },
};

/** Checks a new token and names the user it acts as (shown in listings; never the token). */
export async function identifyGitlab(config: Config, token: string): Promise<string> {
  if (!config.gitlabUrl)
    throw new CodeHostError('GitLab tokens cannot be connected: this server has no GITLAB_URL; the operator sets it to the GitLab instance.');
  try {
    const user = await new Gitlab({ host: config.gitlabUrl, token }).Users.showCurrentUser();
    return user.username;
  } catch (error) {
    throw explainGitlabError(error, 'check the token');
  }
}
