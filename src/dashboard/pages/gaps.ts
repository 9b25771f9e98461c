import type { FastifyInstance, FastifyRequest } from 'fastify';
import { dayMs } from '../../analytics/model/days.ts';
import type { AppContext } from '../../http/context.ts';
import { invalidRequest } from '../../http/errors.ts';
import { field, formOf, viewerOf, viewerProject } from '../auth.ts';
import { html, type Html } from '../html.ts';
import { csrfField, layout, projectTabs, sendPage, type Viewer } from '../layout.ts';
import { rangePresets } from './analytics-sections.ts';
import { readRange } from './feedback.ts';

type GapsRequest = FastifyRequest<{ Params: { projectId: string }; Querystring: { from?: string; to?: string; status?: string } }>;
type GapActionRequest = FastifyRequest<{ Params: { projectId: string; gapId: string } }>;
type Gap = Awaited<ReturnType<AppContext['gaps']['list']>>['gaps'][number];

const isoDay = (at: number) => new Date(at).toISOString().slice(0, 10);
const statuses = ['open', 'in_progress', 'fixed', 'dismissed'] as const;
const shown = 50;
const kinds = { missing: 'Missing', unclear: 'Unclear', broken: 'Broken (404)' } as const;

const figures = (evidence: Gap['evidence']) =>
  html`${evidence.unanswered} unanswered · ${evidence.searches} searches · ${evidence.feedback} not helpful · ${evidence.notFound} 404s`;

function actions(gap: Gap, viewer: Viewer, base: string, back: string): Html {
  const form = (action: string, label: string, extra: Html | string = '') =>
    html`<form method="post" action="${base}/${gap.id}/${action}" class="gap-action">${csrfField(viewer)}<input type="hidden" name="back" value="${back}">${extra}<button type="submit">${label}<span class="visually-hidden"> for ${gap.title}</span></button></form>`;
  const fix = gap.status === 'open' || gap.status === 'dismissed' ? form('job', 'Fix with agent') : '';
  const status =
    gap.status === 'dismissed'
      ? form('status', 'Reopen', html`<input type="hidden" name="status" value="open">`)
      : gap.status === 'open'
        ? form('status', 'Dismiss', html`<input type="hidden" name="status" value="dismissed">`)
        : '';
  return html`${fix}${status}`;
}

function gapRow(gap: Gap, projectId: string, viewer: Viewer, base: string, back: string): Html {
  const examples = gap.examples.length ? html`<ul class="examples">${gap.examples.map((example) => html`<li>${example}</li>`)}</ul>` : '';
  const paths = gap.paths.length ? html`<p><small>Pages: ${gap.paths.join(', ')}</small></p>` : '';
  const job = gap.jobId
    ? html`<p><a href="/dashboard/projects/${projectId}/jobs/${gap.jobId}">Job</a>${gap.prLink ? html` · <a href="${gap.prLink}" rel="noopener">Pull request</a>` : ''}</p>`
    : '';
  const after = gap.after
    ? html`<p class="before-after">Before: ${figures(gap.evidence)}<br>After (since ${gap.fixedAt!.slice(0, 10)}): <strong>${figures(gap.after)}</strong></p>`
    : html`<p>${figures(gap.evidence)}</p>`;
  return html`<tr data-id="${gap.id}"><td class="comment"><strong>${gap.title}</strong><br><small>${kinds[gap.kind]} · ${gap.status.replace('_', ' ')}</small>${examples}${paths}${job}</td>
<td class="number">${gap.visitors.total}<br><small>${gap.visitors.human} people · ${gap.visitors.ai} AI</small></td><td>${after}${actions(gap, viewer, base, back)}</td></tr>`;
}

/** The Gaps tab: docs gaps ranked by visitors affected, their evidence, and the jobs that fix them. */
export function gapPages(scope: FastifyInstance, context: AppContext): void {
  scope.get('/projects/:projectId/gaps', async (request: GapsRequest, reply) => {
    const viewer = viewerOf(request);
    const project = await viewerProject(context, request, request.params.projectId);
    const { from, end } = readRange(request.query);
    const status = request.query.status || undefined;
    if (status !== undefined && !statuses.includes(status as (typeof statuses)[number])) throw invalidRequest(`Pick a status: ${statuses.join(', ')}.`);
    const { gaps, hasMore } = await context.gaps.list(context, project, {
      range: { from, to: end },
      statuses: status ? [status as (typeof statuses)[number]] : null,
      limit: shown,
      offset: 0,
    });
    const base = `/dashboard/projects/${project.id}/gaps`;
    const range = { from: isoDay(from), to: isoDay(end - dayMs) };
    const back = `${base}?${new URLSearchParams({ ...range, status: status ?? '' })}`;
    const body = html`${projectTabs(project, 'gaps')}
<form method="get" action="${base}" class="range" aria-label="Range and status">
<label>First day <input type="date" name="from" value="${range.from}" required></label>
<label>Last day <input type="date" name="to" value="${range.to}" required></label>
<label>Status <select name="status"><option value="">All but dismissed</option>${statuses.map((value) => html`<option value="${value}"${value === status ? html` selected` : ''}>${value.replace('_', ' ')}</option>`)}</select></label>
<button type="submit">Show</button>
</form>
${rangePresets(base, Math.floor(Date.now() / dayMs) * dayMs)}
<p class="hint">Unanswered assistant questions, searches without results, “not helpful” feedback and 404s, grouped by what was asked and by page, ranked by the distinct people and AI agents they affect. Examples are what readers typed, shown as plain text. <strong>Fix with agent</strong> starts an agent job whose prompt quotes the evidence; once its pull request is merged and the docs index builds it, the gap is fixed and its after figures show the same evidence since.</p>
${gaps.length ? html`<div class="scroll"><table id="gaps"><thead><tr><th scope="col">Gap</th><th scope="col" class="number">Visitors</th><th scope="col">Evidence</th></tr></thead><tbody>${gaps.map((gap) => gapRow(gap, project.id, viewer, base, back))}</tbody></table></div>${hasMore ? html`<p>Showing the first ${shown} gaps.</p>` : ''}` : html`<p>No gaps in this range: nothing readers or agents asked went unanswered.</p>`}`;
    return sendPage(reply, layout({ title: `Gaps · ${project.name}`, viewer, section: 'projects', body }));
  });

  const backTo = (projectId: string, back: string) =>
    back.startsWith(`/dashboard/projects/${projectId}/gaps`) ? back : `/dashboard/projects/${projectId}/gaps`;
  const rangeOf = (back: string) => {
    const query = new URLSearchParams(back.split('?')[1] ?? '');
    const { from, end } = readRange({ from: query.get('from') ?? undefined, to: query.get('to') ?? undefined });
    return { from, to: end };
  };

  scope.post('/projects/:projectId/gaps/:gapId/job', async (request: GapActionRequest, reply) => {
    const project = await viewerProject(context, request, request.params.projectId);
    const back = backTo(project.id, field(formOf(request), 'back'));
    const job = await context.gaps.createJob(context, project, request.params.gapId, rangeOf(back));
    return reply.redirect(`/dashboard/projects/${project.id}/jobs/${job.id}`, 303);
  });

  scope.post('/projects/:projectId/gaps/:gapId/status', async (request: GapActionRequest, reply) => {
    const project = await viewerProject(context, request, request.params.projectId);
    const form = formOf(request);
    const status = field(form, 'status');
    if (status !== 'open' && status !== 'dismissed') throw invalidRequest('Pick open or dismissed.');
    const back = backTo(project.id, field(form, 'back'));
    await context.gaps.changeStatus(context, project, request.params.gapId, status, rangeOf(back));
    return reply.redirect(back, 303);
  });
}
