import type { FastifyInstance, FastifyRequest } from 'fastify';
import { parseBound } from '../../analytics/http/range.ts';
import { breakdown, type AgentRow, type ReferrerRow } from '../../analytics/query/breakdowns.ts';
import { page } from '../../analytics/query/query.ts';
import { dailySeries } from '../../analytics/query/series.ts';
import { dayMs } from '../../analytics/model/days.ts';
import { publicUrl } from '../../config/config.ts';
import type { AppContext } from '../../http/context.ts';
import { ApiError, invalidRequest } from '../../http/errors.ts';
import { findProject } from '../../accounts/projects.ts';
import { sharedProject } from '../../analytics/query/shared-links.ts';
import { viewerOf, viewerProject } from '../auth.ts';
import { html, type Html } from '../html.ts';
import type { ProjectRow } from '../../storage/tables/accounts.ts';
import { realtime } from '../../analytics/query/dimensions.ts';
import { dimensionSections } from './analytics-dimensions.ts';
import { layout, projectTabs, sendPage } from '../layout.ts';
import { aiSections, emptyState, rangePresets, referralSections } from './analytics-sections.ts';
import { visitorsChart, type DayCounts } from './chart.ts';

type AnalyticsRequest = FastifyRequest<{ Params: { projectId: string }; Querystring: { from?: string; to?: string; offset?: string } }>;

const pageSize = 50;
const exportPageSize = 250;
/** A year and a day: the chart draws one bar pair per day. */
const longestRangeDays = 366;

const isoDay = (at: number) => new Date(at).toISOString().slice(0, 10);

/**
 * The range the picker asks for: `from` and `to` are both included (people think in whole days);
 * the queries get the API's exclusive end, the day after `to`. Default: the last 7 days, today included.
 */
function readRange(query: AnalyticsRequest['query']): { from: number; end: number } {
  const today = Math.floor(Date.now() / dayMs) * dayMs;
  const day = (value: string | undefined, fallback: number) =>
    value === undefined || value === '' ? fallback : /^\d{4}-\d{2}-\d{2}$/.test(value) ? parseBound(value) : null;
  const to = day(query.to, today);
  const from = day(query.from, (to ?? today) - 6 * dayMs);
  if (from === null || to === null) throw invalidRequest('Pick the first and last day of the range as dates (2026-11-21).');
  if (from > to) throw invalidRequest('The first day of the range must not be after the last day.');
  if ((to - from) / dayMs + 1 > longestRangeDays) throw invalidRequest(`Pick a range of at most ${longestRangeDays} days.`);
  return { from, end: to + dayMs };
}

/** One CSV field; a leading = + - @ is neutralised so spreadsheets do not run it as a formula. */
function csvField(value: string | number): string {
  const text = typeof value === 'number' ? String(value) : /^[=+\-@]/.test(value) ? `'${value}` : value;
  return /[",\n\r]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** Where the page links to and what it leaves out: a shared link shows the numbers only (no tabs, no export, no setup). */
interface PageMode {
  base: string;
  readOnly: boolean;
}

/** The analytics page's body for `project`, as the dashboard and a shared link show it. */
export async function analyticsBody(context: AppContext, project: ProjectRow, queryString: AnalyticsRequest['query'], mode: PageMode): Promise<Html> {
  const { from, end } = readRange(queryString);
  const offset = Math.max(0, Number.parseInt(queryString.offset ?? '0', 10) || 0);
  const result = await page(context.analytics, project.id, { measure: 'visitors', from, to: end, limit: pageSize, offset });
  const views = await page(context.analytics, project.id, { measure: 'views', from, to: end, limit: 1, offset: 0 });
  const agents = await breakdown<AgentRow>(context.analytics, project.id, { breakdown: 'agents' }, from, end);
  const categoryVisitors = new Map<string, number>();
  for (const category of new Set(agents.rows.map((row) => row.category))) {
    categoryVisitors.set(category, (await breakdown<AgentRow>(context.analytics, project.id, { breakdown: 'agents', category }, from, end)).totals.visitors);
  }
  const referrers = await breakdown<ReferrerRow>(context.analytics, project.id, { breakdown: 'referrers' }, from, end);
  const series = await dailySeries(context.analytics, project.id, 'visitors', from, end);
  const days: DayCounts[] = series.map((entry) => ({ day: isoDay(entry.day * dayMs), human: entry.human, ai: entry.ai }));
  const range = { from: isoDay(from), to: isoDay(end - dayMs) };
  const { base } = mode;
  const query = new URLSearchParams(range).toString();
  const rows = result.rows.map(
    (row) => html`<tr><td>${row.path}</td><td class="number">${row.human}</td><td class="number">${row.ai}</td><td class="number">${row.total}</td></tr>`,
  );
  const dailyRows = days.map((day) => html`<tr><td>${day.day}</td><td class="number">${day.human}</td><td class="number">${day.ai}</td></tr>`);
  const more = result.hasMore ? html`<p><a href="${base}?${query}&offset=${offset + pageSize}">Next ${pageSize} pages</a></p>` : '';
  const dimensions = await dimensionSections(context, project.id, from, end);
  const live = await realtime(context.analytics, project.id);
  return html`${mode.readOnly ? '' : projectTabs(project, 'analytics')}
<form method="get" action="${base}" class="range" aria-label="Date range">
<label>First day <input type="date" name="from" value="${range.from}" required></label>
<label>Last day <input type="date" name="to" value="${range.to}" required></label>
<button type="submit">Show</button>
${mode.readOnly ? '' : html`<a href="${base}/visitors.csv?${query}" download>Download CSV</a>`}
</form>
${rangePresets(base, Math.floor(Date.now() / dayMs) * dayMs)}
<p class="hint">Days are UTC. Unique visitors are counted over the whole range, so a visitor seen on several days counts once in the totals and the pages table.</p>
<p class="realtime" id="realtime">On the site in the last five minutes: <strong>${live.visitors.total}</strong> (${live.visitors.human} human, ${live.visitors.ai} AI)</p>
${mode.readOnly ? '' : html`<p><a href="/dashboard/projects/${project.id}/gaps?${query}" id="gaps-link">Docs gaps: what readers and agents failed to find in this range</a></p>`}
<ul class="totals" aria-label="Totals">
<li>Human visitors <strong id="total-human">${result.totals.human}</strong></li>
<li>AI visitors <strong id="total-ai">${result.totals.ai}</strong></li>
<li>All visitors <strong id="total-all">${result.totals.total}</strong></li>
</ul>
<ul class="totals" aria-label="Page views">
<li>Human page views <strong id="views-human">${views.totals.human}</strong></li>
<li>AI page views <strong id="views-ai">${views.totals.ai}</strong></li>
<li>All page views <strong id="views-all">${views.totals.total}</strong></li>
</ul>
${views.totals.total === 0 && !mode.readOnly ? emptyState(publicUrl(context.config), project.id) : ''}
<h2>Visitors per day</h2>
${visitorsChart(days)}
<details><summary>Daily numbers</summary><div class="scroll"><table><thead><tr><th scope="col">Day</th><th scope="col" class="number">Human</th><th scope="col" class="number">AI</th></tr></thead><tbody>${dailyRows}</tbody></table></div></details>
<h2>Top pages</h2>
${rows.length ? html`<div class="scroll"><table id="top-pages"><thead><tr><th scope="col">Page</th><th scope="col" class="number">Human</th><th scope="col" class="number">AI</th><th scope="col" class="number">Total</th></tr></thead><tbody>${rows}</tbody></table></div>` : html`<p>No visitors in this range.</p>`}
${more}
${dimensions}
${aiSections(agents, categoryVisitors)}
${referralSections(referrers)}`;
}

export function analyticsPages(scope: FastifyInstance, context: AppContext): void {
  scope.get('/projects/:projectId/analytics', async (request: AnalyticsRequest, reply) => {
    const viewer = viewerOf(request);
    const project = await viewerProject(context, request, request.params.projectId);
    const body = await analyticsBody(context, project, request.query, { base: `/dashboard/projects/${project.id}/analytics`, readOnly: false });
    return sendPage(reply, layout({ title: `Analytics · ${project.name}`, viewer, section: 'projects', body }));
  });

  scope.get('/projects/:projectId/analytics/visitors.csv', async (request: AnalyticsRequest, reply) => {
    const project = await viewerProject(context, request, request.params.projectId);
    const { from, end } = readRange(request.query);
    const lines = ['path,human,ai,total'];
    for (let offset = 0, more = true; more; offset += exportPageSize) {
      const result = await page(context.analytics, project.id, { measure: 'visitors', from, to: end, limit: exportPageSize, offset });
      for (const row of result.rows) lines.push([row.path, row.human, row.ai, row.total].map(csvField).join(','));
      more = result.hasMore;
    }
    const filename = `visitors-${project.id}-${isoDay(from)}-${isoDay(end - dayMs)}.csv`;
    return reply
      .type('text/csv; charset=utf-8')
      .header('content-disposition', `attachment; filename="${filename}"`)
      .send(`${lines.join('\n')}\n`);
  });
}

/**
 * `/share/{token}`: the analytics page of the token's project, read-only, without signing in. Only
 * the page itself and its range and paging parameters are served; a revoked, unknown or malformed
 * token is the same 404 (nothing tells a guess apart from a revoked link).
 */
export function sharedPages(scope: FastifyInstance, context: AppContext): void {
  scope.get('/share/:token', async (request: FastifyRequest<{ Params: { token: string }; Querystring: AnalyticsRequest['query'] }>, reply) => {
    const projectId = await sharedProject(context.storage.db, request.params.token);
    const project = projectId === null ? undefined : await findProject(context.storage.db, projectId);
    if (!project) throw new ApiError('not_found', 'This shared link does not exist or was revoked; ask the project’s owner for a new one.');
    const body = await analyticsBody(context, project, request.query, { base: `/share/${request.params.token}`, readOnly: true });
    reply.header('cache-control', 'no-store').header('referrer-policy', 'no-referrer').header('x-robots-tag', 'noindex');
    return sendPage(reply, layout({ title: `Analytics · ${project.name}`, viewer: null, body }));
  });
}
