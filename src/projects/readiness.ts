import { repositoryProblem } from '../code-hosts/access.ts';
import { displayRepository } from '../lib/display-repository.ts';
import type { AppContext } from '../http/context.ts';
import { checkModel } from '../llm/models.ts';
import { ModelProbes } from '../llm/probe.ts';
import type { ProjectRow } from '../storage/tables/accounts.ts';

export type ReadinessName = 'repository' | 'model' | 'provider' | 'endpoint' | 'codeHost';

export interface ReadinessCheck {
  name: ReadinessName;
  label: string;
  /** What is set, when the check passes. */
  ok: string | null;
  /** What to do, when it does not. */
  fix: string;
  /** How long the check's call took (the model endpoint's), in milliseconds; null for checks of settings. */
  ms: number | null;
}

const restart = 'Server-wide settings take effect once the server and its workers restart.';

/** One model call per model and endpoint every 30 s at most, whoever asks (see llm/probe.ts). */
const probes = new ModelProbes();

const ago = (at: number) => {
  const seconds = Math.max(0, Math.round((Date.now() - at) / 1000));
  return seconds < 2 ? 'just now' : `${seconds} s ago`;
};

/**
 * What a project needs before agent jobs can run, item by item: a repository, a model, the model
 * provider's endpoint or key, a model that answers, and code-host access to the repository. Each says
 * whether it is a project setting or a server-wide one (the environment, with a restart). The model is
 * asked for a one-token completion (cached briefly) only once its provider is configured.
 */
export async function readinessChecks(context: AppContext, project: ProjectRow): Promise<ReadinessCheck[]> {
  const model = context.agent.modelFor(project);
  const provider = model ? checkModel(model, context.config) : 'Choose a model first.';
  const [access, probe] = await Promise.all([
    project.repository ? repositoryProblem(context.storage.db, context.config, project.org_id, project.repository) : 'Set the repository first.',
    model && provider === null ? probes.get(model, context.config) : null,
  ]);
  return [
    {
      name: 'repository',
      label: 'Repository',
      ok: project.repository === null ? null : displayRepository(project.repository),
      fix: 'Set the Repository field: an https:// URL, or the path of a local repository.',
      ms: null,
    },
    {
      name: 'model',
      label: 'Model',
      ok: model && (project.model ? `${model} (this project)` : `${model} (the server default, QUIRE_MODEL)`),
      fix: `Set the project's Model, or QUIRE_MODEL on the server. ${restart}`,
      ms: null,
    },
    {
      name: 'provider',
      label: 'Model provider',
      ok: provider === null ? `configured for ${model}` : null,
      fix: model ? `${provider ?? ''} ${restart}` : 'Choose a model first.',
      ms: null,
    },
    {
      name: 'endpoint',
      label: 'Model answers',
      ok: probe?.ok ? `${model} answered a one-token request in ${probe.ms} ms (checked ${ago(probe.checkedAt)})` : null,
      fix: probe
        ? `${model} did not answer a one-token request after ${probe.ms} ms (checked ${ago(probe.checkedAt)}): ${probe.detail}. Check that the provider is running and reachable from the server, that the key is valid, and that it serves this model id.`
        : 'Configure the model provider first.',
      ms: probe?.ms ?? null,
    },
    { name: 'codeHost', label: 'Code host', ok: access === null ? 'Quire can reach the repository' : null, fix: access ?? '', ms: null },
  ];
}
