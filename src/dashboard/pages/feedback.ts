import type { FastifyInstance, FastifyRequest } from 'fastify';
import { feedbackByPage, feedbackList, feedbackProjectKey, itemOf, type FeedbackItem } from '../../analytics/feedback/feedback-query.ts';
import { codeList, feedbackSources, feedbackStatuses } from '../../analytics/feedback/kinds.ts';
import { searchesPage, searchTrend, type SearchSummary } from '../../analytics/feedback/search-query.ts';
import { changeStatus } from '../../analytics/feedback/status.ts';
import { parseBound } from '../../analytics/http/range.ts';
import { dayMs } from '../../analytics/model/days.ts';
import type { AppContext } from '../../http/context.ts';
import { ApiError, invalidRequest } from '../../http/errors.ts';
import { field, formOf, viewerOf, viewerProject } from '../auth.ts';
import { html, type Html } from '../html.ts';
import { csrfField, layout, projectTabs, sendPage, type Viewer } from '../layout.ts';
import { rangePresets } from './analytics-sections.ts';
import { noHitsChart } from './feedback-chart.ts';

type FeedbackRequest = FastifyRequest<{ Params: { projectId: string }; Querystring: { from?: string; to?: string; source?: string; status?: string } }>;

const isoDay = (at: number) => new Date(at).toISOString().slice(0, 10);
const shown = 20;
const longestRangeDays = 366;

/** First and last day of the picker, both included; default the last 7 days (as on the analytics page). */
export function readRange(query: { from?: string; to?: string }): { from: number; end: number } {
  const today = Math.floor(Date.now() / dayMs) * dayMs;
  const day = (value: string | undefined, fallback: number) =>
    value === undefined || value === '' ? fallback : /^\d{4}-\d{2}-\d{2}$/.test(value) ? parseBound(value) : null;
  const to = day(query.to, today);
  const from = day(query.from, (to ?? today) - 6 * dayMs);
  if (from === null || to === null) throw invalidRequest('Pick the first and last day of the range as dates (2026-11-21).');
  if (from > to || (to - from) / dayMs + 1 > longestRangeDays)
    throw invalidRequest(`Pick a first day before the last, at most ${longestRangeDays} days apart.`);
  return { from, end: to + dayMs };
}

function filterOf(value: string | undefined, names: readonly string[]): number[] | undefined {
  try {
    return codeList(value, names, 'filter');
  } catch (error) {
    throw invalidRequest((error as Error).message);
  }
}

const select = (name: string, names: readonly string[], current: string | undefined, anyLabel: string) =>
  html`<select name="${name}" id="${name}-filter"><option value="">${anyLabel}</option>${names.map((value) => html`<option value="${value}"${value === current ? html` selected` : ''}>${value.replace('_', ' ')}</option>`)}</select>`;

function itemRow(item: FeedbackItem, viewer: Viewer, action: string, back: string): Html {
  const thumbs = item.helpful === undefined ? '' : item.helpful ? '👍 ' : '👎 ';
  const code =
    item.code === undefined
      ? ''
      : html`<details><summary>${item.filename ?? 'Snippet'}${item.lang ? ` (${item.lang})` : ''}</summary><pre class="comment">${item.code}</pre></details>`;
  return html`<tr data-id="${item.id}"><td>${item.path}</td><td class="comment">${thumbs}${item.comment}${code}${item.contact ? html`<br><small>Contact: ${item.contact}</small>` : ''}</td><td>${item.source.replace('_', ' ')}</td><td>${item.createdAt.slice(0, 10)}</td>
<td><form method="post" action="${action}/${item.id}/status" class="feedback-status">${csrfField(viewer)}<input type="hidden" name="back" value="${back}"><select name="status" aria-label="Status of this feedback">${feedbackStatuses.map((status) => html`<option value="${status}"${status === item.status ? html` selected` : ''}>${status.replace('_', ' ')}</option>`)}</select><button type="submit">Save</button></form></td></tr>`;
}

const searchRows = (rows: SearchSummary[], count: (row: SearchSummary) => number) =>
  rows.map(
    (row) =>
      html`<tr><td class="comment">${row.searchQuery}</td><td class="number">${count(row)}</td><td class="number">${row.hits}</td><td class="number">${Math.round(row.ctr * 100)}%</td><td>${row.topClickedPage ?? '–'}</td></tr>`,
  );

const searchTable = (id: string, rows: Html[], countLabel: string) =>
  rows.length
    ? html`<div class="scroll"><table id="${id}"><thead><tr><th scope="col">Query</th><th scope="col" class="number">${countLabel}</th><th scope="col" class="number">Hits now</th><th scope="col" class="number">Clicked</th><th scope="col">Top clicked page</th></tr></thead><tbody>${rows}</tbody></table></div>`
    : html`<p>None in this range.</p>`;

/** The Feedback tab: feedback per page and item by item with triage, top searches and searches without hits. */
export function feedbackPages(scope: FastifyInstance, context: AppContext): void {
  scope.get('/projects/:projectId/feedback', async (request: FeedbackRequest, reply) => {
    const viewer = viewerOf(request);
    const project = await viewerProject(context, request, request.params.projectId);
    const { from, end } = readRange(request.query);
    const filter = { from, to: end, sources: filterOf(request.query.source, feedbackSources), statuses: filterOf(request.query.status, feedbackStatuses) };
    const key = await feedbackProjectKey(context.analytics, project.id);
    const pages = key === undefined ? { pages: [], hasMore: false } : await feedbackByPage(context.storage, key, filter, shown, 0);
    const items = key === undefined ? { items: [], hasMore: false } : await feedbackList(context.storage, key, filter, 50, null);
    const top =
      key === undefined ? { searches: [], totalSearches: 0 } : await searchesPage(context.storage, key, { from, to: end, limit: shown, cursor: null });
    const noHits =
      key === undefined ? { searches: [] } : await searchesPage(context.storage, key, { from, to: end, limit: shown, cursor: null, measure: 'no_hits' });
    const trend = key === undefined ? [] : await searchTrend(context.storage, key, from / dayMs, end / dayMs);
    const base = `/dashboard/projects/${project.id}/feedback`;
    const range = { from: isoDay(from), to: isoDay(end - dayMs) };
    const back = `${base}?${new URLSearchParams({ ...range, source: request.query.source ?? '', status: request.query.status ?? '' })}`;
    const pageRows = pages.pages.map(
      (row) =>
        html`<tr><td>${row.path}</td><td class="number">${row.thumbsUp}</td><td class="number">${row.thumbsDown}</td><td class="number">${row.code}</td><td class="number">${row.total}</td></tr>`,
    );
    const body = html`${projectTabs(project, 'feedback')}
<form method="get" action="${base}" class="range" aria-label="Range and filters">
<label>First day <input type="date" name="from" value="${range.from}" required></label>
<label>Last day <input type="date" name="to" value="${range.to}" required></label>
<label>Source ${select('source', feedbackSources, request.query.source, 'Any source')}</label>
<label>Status ${select('status', feedbackStatuses, request.query.status, 'Any status')}</label>
<button type="submit">Show</button>
</form>
${rangePresets(base, Math.floor(Date.now() / dayMs) * dayMs)}
<p class="hint">Days are UTC. Comments are what readers typed, shown as plain text.</p>
<h2>Feedback per page</h2>
${pageRows.length ? html`<div class="scroll"><table id="feedback-pages"><thead><tr><th scope="col">Page</th><th scope="col" class="number">👍</th><th scope="col" class="number">👎</th><th scope="col" class="number">Code</th><th scope="col" class="number">Total</th></tr></thead><tbody>${pageRows}</tbody></table></div>` : html`<p>No feedback in this range.</p>`}
<h2>Latest feedback</h2>
${items.items.length ? html`<div class="scroll"><table id="feedback-items"><thead><tr><th scope="col">Page</th><th scope="col">Feedback</th><th scope="col">Source</th><th scope="col">Day</th><th scope="col">Status</th></tr></thead><tbody>${items.items.map((row) => itemRow(itemOf(row), viewer, base, back))}</tbody></table></div>` : html`<p>No feedback in this range.</p>`}
<h2>Top searches</h2>
<ul class="totals" aria-label="Searches"><li>Searches <strong id="total-searches">${top.totalSearches}</strong></li><li>Without hits <strong id="total-no-hits">${trend.reduce((sum, day) => sum + day.noHits, 0)}</strong></li></ul>
${searchTable(
  'top-searches',
  searchRows(top.searches, (row) => row.searches),
  'Searches',
)}
<h2>Searches with no hits</h2>
${noHitsChart(trend.map((day) => ({ day: isoDay(day.day * dayMs), noHits: day.noHits, searches: day.searches })))}
${searchTable(
  'no-hit-searches',
  searchRows(noHits.searches, (row) => row.noHits),
  'Without hits',
)}`;
    return sendPage(reply, layout({ title: `Feedback · ${project.name}`, viewer, section: 'projects', body }));
  });

  scope.post('/projects/:projectId/feedback/:id/status', async (request: FastifyRequest<{ Params: { projectId: string; id: string } }>, reply) => {
    const project = await viewerProject(context, request, request.params.projectId);
    const form = formOf(request);
    const status = feedbackStatuses.indexOf(field(form, 'status') as (typeof feedbackStatuses)[number]);
    if (status === -1) throw invalidRequest(`Pick a status: ${feedbackStatuses.join(', ')}.`);
    const key = await feedbackProjectKey(context.analytics, project.id);
    const row = key === undefined ? undefined : await changeStatus(context.storage, key, request.params.id, status);
    if (!row) throw new ApiError('not_found', `Feedback ${request.params.id} was not found in this project.`);
    const back = field(form, 'back');
    return reply.redirect(back.startsWith(`/dashboard/projects/${project.id}/feedback`) ? back : `/dashboard/projects/${project.id}/feedback`, 303);
  });
}
