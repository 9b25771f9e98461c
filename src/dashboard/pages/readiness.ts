import { checkModel } from '../../llm/models.ts';
import { repositoryProblem } from '../../code-hosts/access.ts';
import type { AppContext } from '../../http/context.ts';
import type { ProjectRow } from '../../storage/tables/accounts.ts';
import { html, type Html } from '../html.ts';

interface Check {
  label: string;
  /** What is set, when the check passes. */
  ok: string | null;
  /** What to do, when it does not. */
  fix: string;
}

const restart = 'Server-wide settings take effect once the server and its workers restart.';

/**
 * What a project needs before agent jobs can run, item by item: a repository, a model, the model
 * provider's endpoint or key, and code-host access to the repository. Each says whether it is a
 * project setting (this page) or a server-wide one (the environment, with a restart).
 */
export async function readinessChecks(context: AppContext, project: ProjectRow): Promise<Check[]> {
  const model = context.agent.modelFor(project);
  const provider = model ? checkModel(model, context.config) : 'Choose a model first.';
  const access = project.repository
    ? await repositoryProblem(context.storage.db, context.config, project.org_id, project.repository)
    : 'Set the repository first.';
  return [
    { label: 'Repository', ok: project.repository, fix: 'Set the Repository field below: an https:// URL, or the path of a local repository.' },
    {
      label: 'Model',
      ok: model && (project.model ? `${model} (this project)` : `${model} (the server default, QUIRE_MODEL)`),
      fix: `Set the Model field below, or QUIRE_MODEL on the server. ${restart}`,
    },
    {
      label: 'Model provider',
      ok: provider === null ? `configured for ${model}` : null,
      fix: model ? `${provider ?? ''} ${restart}` : 'Choose a model first.',
    },
    { label: 'Code host', ok: access === null ? 'Quire can reach the repository' : null, fix: access ?? '' },
  ];
}

export async function readinessChecklist(context: AppContext, project: ProjectRow): Promise<Html> {
  const checks = await readinessChecks(context, project);
  const ready = checks.every((check) => check.ok !== null);
  const items = checks.map(
    (check) =>
      html`<li class="${check.ok ? 'ready' : 'missing'}"><span class="mark" aria-hidden="true">${check.ok ? '✓' : '✗'}</span> <strong>${check.label}</strong>: ${
        check.ok ?? html`<span class="visually-hidden">missing. </span>${check.fix}`
      }</li>`,
  );
  return html`<section aria-labelledby="readiness"><h2 id="readiness">${ready ? 'Ready for jobs' : 'Before this project can run jobs'}</h2>
<ul class="checklist">${items}</ul>${ready ? html`<p><a href="/dashboard/projects/${project.id}/jobs">Create a job</a></p>` : ''}</section>`;
}
