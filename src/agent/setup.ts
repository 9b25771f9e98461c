import type { ProjectRow } from '../accounts/tables.ts';
import type { AgentSetup } from '../jobs/runner.ts';
import { JobFailure } from '../jobs/runner.ts';
import type { Config } from '../server/config.ts';

/** The agent as the job API and the worker use it, from the deployment's configuration. */
export function createAgentSetup(config: Config): AgentSetup {
  const modelFor = (project: ProjectRow) => project.model ?? config.model ?? null;
  return {
    modelFor,
    checkProject(project) {
      if (!project.repository) return `Project ${project.id} has no repository; set one with "quire projects update ${project.id} --repository URL".`;
      if (!modelFor(project)) return `Project ${project.id} has no model; set QUIRE_MODEL=provider:model or "quire projects update ${project.id} --model provider:model".`;
      return 'Agent jobs need the agent runner, which this version of Quire does not include yet.';
    },
    runner: {
      async run() {
        throw new JobFailure('Agent jobs need the agent runner, which this version of Quire does not include yet.');
      },
    },
  };
}
