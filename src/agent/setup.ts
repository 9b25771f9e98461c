import type { ProjectRow } from '../storage/tables/accounts.ts';
import { codeHostFor } from '../code-hosts/select.ts';
import type { CodeHost } from '../code-hosts/types.ts';
import type { AgentSetup } from '../jobs/runner.ts';
import type { Config } from '../server/config.ts';
import { openWorkspace } from '../workspace/workspace.ts';
import { checkModel } from './models.ts';
import { createRunner, type RunnerDependencies } from './runner.ts';

/** The credentials each code host cannot work without, as the sentence that says how to provide them. */
const credentialChecks: Record<CodeHost['name'], (config: Config) => string | null> = {
  github: (config) =>
    config.githubToken || (config.githubAppId && config.githubAppPrivateKey) ? null : 'set GITHUB_TOKEN, or GITHUB_APP_ID and GITHUB_APP_PRIVATE_KEY for a GitHub App',
  gitlab: (config) => (config.gitlabToken ? null : 'set GITLAB_TOKEN'),
  local: () => null,
};

/** The agent as the job API and the worker use it, from the deployment's configuration. */
export function createAgentSetup(config: Config, dependencies: RunnerDependencies = { openWorkspace, codeHostFor }): AgentSetup {
  const modelFor = (project: ProjectRow) => project.model ?? config.model ?? null;
  return {
    modelFor,
    checkProject(project) {
      if (!project.repository) return `Project ${project.id} has no repository; set one with "quire projects update ${project.id} --repository URL".`;
      const model = modelFor(project);
      if (!model) return `Project ${project.id} has no model; set QUIRE_MODEL=provider:model or "quire projects update ${project.id} --model provider:model".`;
      const modelProblem = checkModel(model, config);
      if (modelProblem) return `Project ${project.id} cannot run agent jobs: ${modelProblem}`;
      let host: CodeHost;
      try {
        host = dependencies.codeHostFor(project.repository, config);
      } catch (error) {
        return `Project ${project.id} cannot run agent jobs: ${(error as Error).message}`;
      }
      const missing = credentialChecks[host.name](config);
      return missing ? `Project ${project.id} uses ${project.repository} on ${host.name === 'github' ? 'GitHub' : 'GitLab'}; ${missing}.` : null;
    },
    runner: createRunner(config, dependencies),
  };
}
