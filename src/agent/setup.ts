import type { Kysely } from 'kysely';
import type { ProjectRow } from '../storage/tables/accounts.ts';
import { resolveAccess } from '../code-hosts/access.ts';
import { providerFor } from '../code-hosts/select.ts';
import type { AgentSetup } from '../jobs/runner.ts';
import type { Config } from '../config/config.ts';
import type { Database } from '../storage/schema.ts';
import { openWorkspace } from '../workspace/workspace.ts';
import { checkModel } from '../llm/models.ts';
import { createRunner, type RunnerDependencies } from './runner.ts';

/**
 * The agent as the job API and the worker use it, from the deployment's configuration. Whether the
 * organization may reach the repository, and with which credentials, is decided when the job opens
 * its workspace (`resolveAccess`), since grants and connections can change after a job is queued.
 */
export function createAgentSetup(config: Config, db: Kysely<Database>, dependencies: Partial<RunnerDependencies> = {}): AgentSetup {
  const modelFor = (project: ProjectRow) => project.model ?? config.model ?? null;
  const runnerDependencies: RunnerDependencies = {
    openWorkspace,
    accessFor: (job) => resolveAccess(db, config, job.org_id, job.repository),
    ...dependencies,
  };
  return {
    modelFor,
    checkProject(project) {
      if (!project.repository) return `Project ${project.id} has no repository; set one with "quire projects update ${project.id} --repository URL".`;
      const model = modelFor(project);
      if (!model) return `Project ${project.id} has no model; set QUIRE_MODEL=provider:model or "quire projects update ${project.id} --model provider:model".`;
      const modelProblem = checkModel(model, config);
      if (modelProblem) return `Project ${project.id} cannot run agent jobs: ${modelProblem}`;
      try {
        providerFor(project.repository, config);
      } catch (error) {
        return `Project ${project.id} cannot run agent jobs: ${(error as Error).message}`;
      }
      return null;
    },
    runner: createRunner(config, runnerDependencies),
  };
}
