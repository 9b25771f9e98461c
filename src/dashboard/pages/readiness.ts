import type { AppContext } from '../../http/context.ts';
import { readinessChecks } from '../../projects/readiness.ts';
import type { ProjectRow } from '../../storage/tables/accounts.ts';
import { html, type Html } from '../html.ts';

/** The project's "ready for jobs" checklist (projects/readiness.ts): a mark, the item, and what is set or what to do. */
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
