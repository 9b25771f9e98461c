import type { FastifyInstance, FastifyRequest } from 'fastify';
import { parseBound } from '../../analytics/http/range.ts';
import { parseFilters } from '../../analytics/http/dimension-schemas.ts';
import { realtime, type Filter } from '../../analytics/query/dimensions.ts';
import type { Page } from '../../analytics/query/query.ts';
import { dayMs } from '../../analytics/model/days.ts';
import { publicUrl } from '../../config/config.ts';
import type { AppContext } from '../../http/context.ts';
import { clientAddressResolver, clientNetwork } from '../../http/client-address.ts';
import { rateLimited, takeRateLimit } from '../../http/rate-limit.ts';
import { ApiError, invalidRequest } from '../../http/errors.ts';
import { findProject } from '../../accounts/projects.ts';
import { sharedProject } from '../../analytics/query/shared-links.ts';
import { viewerOf, viewerProject } from '../auth.ts';
import { html, type Html } from '../html.ts';
import type { ProjectRow } from '../../storage/tables/accounts.ts';
import { dimensionSections } from './analytics-dimensions.ts';
import { layout, projectTabs, sendPage } from '../layout.ts';
import { aiSections, emptyState, rangePresets, referralSections } from './analytics-sections.ts';
import { filterCell, filterChips, viewQuery, type AnalyticsView } from './analytics-view.ts';
import { agentsOf, pageOf, referrersOf, seriesOf, type Range } from './analytics-data.ts';
import { visitorsChart } from './chart.ts';

type AnalyticsQuery = { from?: string; to?: string; offset?: string; filter?: string | string[]; compare?: string };
type AnalyticsRequest = FastifyRequest<{ Params: { projectId: string }; Querystring: AnalyticsQuery }>;

const pageSize = 50;
/** A year and a day: the chart draws one point per day. */
const longestRangeDays = 366;
/** As many filters as the API takes on one request. */
const mostFilters = 10;

const isoDay = (at: number) => new Date(at).toISOString().slice(0, 10);

/**
 * The range the picker asks for: `from` and `to` are both included (people think in whole days);
 * the queries get the API's exclusive end, the day after `to`. Default: the last 7 days, today included.
 */
function readRange(query: AnalyticsQuery): { from: number; end: number } {
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

/** The filters of the page's URL, checked as the API checks them (a malformed one is a 400 saying what a filter looks like). */
function readFilters(query: AnalyticsQuery): Filter[] {
  const filters = parseFilters(query.filter);
  if (filters.length > mostFilters) throw invalidRequest(`Use at most ${mostFilters} filters at once.`);
  return filters;
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

/** A total, with the previous period's beside it when the page compares. */
function total(id: string, label: string, value: number, previous: number | undefined): Html {
  const before = previous === undefined ? '' : html`<span class="previous" id="${id}-previous">previous period: ${previous}</span>`;
  return html`<li>${label} <strong id="${id}">${value}</strong>${before}</li>`;
}

/** The live count: the page's script asks `url` again every few seconds while the page is visible. */
function realtimeLine(url: string, counts: Page['totals']): Html {
  return html`<p class="realtime" id="realtime" data-realtime-url="${url}" aria-live="polite">On the site in the last five minutes (all pages, no filters): <strong id="realtime-total">${counts.total}</strong> (<span id="realtime-human">${counts.human}</span> human, <span id="realtime-ai">${counts.ai}</span> AI)</p>`;
}

/** The analytics page's body for `project`, as the dashboard and a shared link show it. */
export async function analyticsBody(context: AppContext, project: ProjectRow, queryString: AnalyticsQuery, mode: PageMode): Promise<Html> {
  const { from, end } = readRange(queryString);
  const filters = readFilters(queryString);
  const compare = queryString.compare === 'previous_period';
  const view: AnalyticsView = { base: mode.base, from: isoDay(from), to: isoDay(end - dayMs), filters, compare };
  const range: Range = { from, to: end, filters };
  const before: Range = { from: from - (end - from), to: from, filters };
  const offset = Math.min(Number.MAX_SAFE_INTEGER, Math.max(0, Number.parseInt(queryString.offset ?? '0', 10) || 0));
  const result = await pageOf(context, project.id, 'visitors', range, pageSize, offset);
  const views = await pageOf(context, project.id, 'views', range, 1, 0);
  const previousVisitors = compare ? (await pageOf(context, project.id, 'visitors', before, 1, 0)).totals : undefined;
  const previousViews = compare ? (await pageOf(context, project.id, 'views', before, 1, 0)).totals : undefined;
  const { agents, categoryVisitors } = await agentsOf(context, project.id, range);
  const referrers = await referrersOf(context, project.id, range);
  const days = await seriesOf(context, project.id, range);
  const previousDays = compare ? await seriesOf(context, project.id, before) : undefined;
  const { base } = mode;
  const query = viewQuery(view);
  const rows = result.rows.map(
    (row) =>
      html`<tr>${filterCell(view, 'path', row.path, 'Page')}<td class="number" data-label="Human">${row.human}</td><td class="number" data-label="AI">${row.ai}</td><td class="number" data-label="Total">${row.total}</td></tr>`,
  );
  const dailyRows = days.map((day) => html`<tr><td>${day.day}</td><td class="number">${day.human}</td><td class="number">${day.ai}</td></tr>`);
  const more = result.hasMore ? html`<p><a href="${base}?${query}&offset=${offset + pageSize}">Next ${pageSize} pages</a></p>` : '';
  const dimensions = await dimensionSections(context, view, project.id, range);
  const live = await realtime(context.analytics, project.id);
  const hiddenFilters = filters.map((filter) => html`<input type="hidden" name="filter" value="${filter.property}==${filter.value}">`);
  return html`${mode.readOnly ? '' : projectTabs(project, 'analytics')}
<form method="get" action="${base}" class="range" aria-label="Date range">
<label>First day <input type="date" name="from" value="${view.from}" required></label>
<label>Last day <input type="date" name="to" value="${view.to}" required></label>
<label class="check"><input type="checkbox" name="compare" value="previous_period"${compare ? ' checked' : ''}> Compare with the previous period</label>
${hiddenFilters}<button type="submit">Show</button>
${mode.readOnly ? '' : html`<a href="${base}/visitors.csv?${query}" download>Download CSV</a>`}
</form>
${rangePresets(view, Math.floor(Date.now() / dayMs) * dayMs)}
${filterChips(view)}
<p class="hint">Days are UTC. Unique visitors are counted over the whole range, so a visitor seen on several days counts once in the totals and the pages table. Click a row's name in any table to show only its views.</p>
${mode.readOnly ? '' : html`<p><a href="/dashboard/projects/${project.id}/gaps?${new URLSearchParams({ from: view.from, to: view.to }).toString()}" id="gaps-link">Docs gaps: what readers and agents failed to find in this range</a> · <a href="/dashboard/projects/${project.id}/analytics/shared-links" id="sharing-link">Share this page with a read-only link</a></p>`}
${realtimeLine(`${base}/realtime`, live.visitors)}
<ul class="totals" aria-label="Totals">
${total('total-human', 'Human visitors', result.totals.human, previousVisitors?.human)}
${total('total-ai', 'AI visitors', result.totals.ai, previousVisitors?.ai)}
${total('total-all', 'All visitors', result.totals.total, previousVisitors?.total)}
</ul>
<ul class="totals" aria-label="Page views">
${total('views-human', 'Human page views', views.totals.human, previousViews?.human)}
${total('views-ai', 'AI page views', views.totals.ai, previousViews?.ai)}
${total('views-all', 'All page views', views.totals.total, previousViews?.total)}
</ul>
${views.totals.total === 0 && filters.length === 0 && !mode.readOnly ? emptyState(publicUrl(context.config), project.id) : ''}
<h2>Visitors per day</h2>
${visitorsChart(days, previousDays)}
<details><summary>Daily numbers</summary><div class="scroll"><table><thead><tr><th scope="col">Day</th><th scope="col" class="number">Human</th><th scope="col" class="number">AI</th></tr></thead><tbody>${dailyRows}</tbody></table></div></details>
<h2>Top pages</h2>
${rows.length ? html`<div class="scroll"><table id="top-pages" class="stacked"><thead><tr><th scope="col">Page</th><th scope="col" class="number">Human</th><th scope="col" class="number">AI</th><th scope="col" class="number">Total</th></tr></thead><tbody>${rows}</tbody></table></div>` : html`<p>No visitors in this range.</p>`}
${more}
${dimensions}
${aiSections(view, agents, categoryVisitors)}
${referralSections(view, referrers)}`;
}

export function analyticsPages(scope: FastifyInstance, context: AppContext): void {
  scope.get('/projects/:projectId/analytics', async (request: AnalyticsRequest, reply) => {
    const viewer = viewerOf(request);
    const project = await viewerProject(context, request, request.params.projectId);
    const body = await analyticsBody(context, project, request.query, { base: `/dashboard/projects/${project.id}/analytics`, readOnly: false });
    return sendPage(reply, layout({ title: `Analytics · ${project.name}`, viewer, section: 'projects', body }));
  });

  scope.get('/projects/:projectId/analytics/realtime', async (request: AnalyticsRequest) => {
    const project = await viewerProject(context, request, request.params.projectId);
    return (await realtime(context.analytics, project.id)).visitors;
  });

  scope.get('/projects/:projectId/analytics/visitors.csv', async (request: AnalyticsRequest, reply) => {
    const project = await viewerProject(context, request, request.params.projectId);
    const { from, end } = readRange(request.query);
    const range = { from, to: end, filters: readFilters(request.query) };
    // Every row in one call: the ranking is counted once, in one snapshot. Pages of it would each count it again
    // under filters (from the raw events), and could each read another version of the data.
    const { rows } = await pageOf(context, project.id, 'visitors', range, Number.POSITIVE_INFINITY, 0);
    const lines = ['path,human,ai,total', ...rows.map((row) => [row.path, row.human, row.ai, row.total].map(csvField).join(','))];
    const filename = `visitors-${project.id}-${isoDay(from)}-${isoDay(end - dayMs)}.csv`;
    return reply
      .type('text/csv; charset=utf-8')
      .header('content-disposition', `attachment; filename="${filename}"`)
      .send(`${lines.join('\n')}\n`);
  });
}

type SharedRequest = FastifyRequest<{ Params: { token: string }; Querystring: AnalyticsQuery }>;

/**
 * `/share/{token}`: the analytics page of the token's project, read-only, without signing in, and its
 * live count. Only the page itself with its range, filter, comparison and paging parameters is
 * served; every request looks the token up, so a revoked link stops at once, mid-session included.
 * A client address that tried `QUIRE_SIGN_IN_RATE_LIMIT` unknown links in the sign-in window is
 * refused before anything is looked up, as a password guesser is; the pages of one project's links
 * together take from a budget of their own (`QUIRE_SHARED_LINK_RATE_LIMIT` an hour), never from the
 * organization's API budget.
 */
export function sharedPages(scope: FastifyInstance, context: AppContext): void {
  const clientAddress = clientAddressResolver(context.config.trustedProxies);
  const { config, storage } = context;
  const guessRule = { limit: config.signInRateLimit, windowMs: config.signInRateWindowSeconds * 1000 };
  const pageRule = { limit: config.sharedLinkRateLimit, windowMs: 3_600_000 };

  /** The project a shared link opens; a revoked, unknown or malformed token is the same 404 (nothing tells a guess apart from a revoked link). */
  async function sharedLinkProject(request: SharedRequest): Promise<ProjectRow> {
    const guesses = `share-guess:${clientNetwork(clientAddress(request))}`;
    const guessed = await storage.db.transaction().execute((trx) => takeRateLimit(trx, storage.profile, guesses, guessRule, { consume: false }));
    if (!guessed.allowed) throw rateLimited(guessed, 'Too many unknown shared links from this address.');
    const projectId = await sharedProject(storage.db, request.params.token);
    const project = projectId === null ? undefined : await findProject(storage.db, projectId);
    if (!project) {
      await storage.db.transaction().execute((trx) => takeRateLimit(trx, storage.profile, guesses, guessRule));
      throw new ApiError('not_found', 'This shared link does not exist or was revoked; ask the project’s owner for a new one.');
    }
    return project;
  }

  scope.get('/share/:token', async (request: SharedRequest, reply) => {
    const project = await sharedLinkProject(request);
    const pages = await storage.db.transaction().execute((trx) => takeRateLimit(trx, storage.profile, `share-pages:${project.id}`, pageRule));
    if (!pages.allowed) throw rateLimited(pages, `This project’s shared links have shown ${pageRule.limit} pages in the last hour.`);
    const body = await analyticsBody(context, project, request.query, { base: `/share/${request.params.token}`, readOnly: true });
    reply.header('cache-control', 'no-store').header('referrer-policy', 'no-referrer').header('x-robots-tag', 'noindex');
    return sendPage(reply, layout({ title: `Analytics · ${project.name}`, viewer: null, body }));
  });

  scope.get('/share/:token/realtime', async (request: SharedRequest, reply) => {
    const project = await sharedLinkProject(request);
    reply.header('cache-control', 'no-store').header('x-robots-tag', 'noindex');
    return (await realtime(context.analytics, project.id)).visitors;
  });
}
