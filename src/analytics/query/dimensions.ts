/**
 * Breakdowns by the dimensions ingestion gives each view (country, browser, OS, device, source,
 * entry page), and the filtered and realtime counts: exact distinct counts in SQL over the raw events
 * of the range, which keep each view's counted class and dimensions (ingest/dimensions/). The
 * unfiltered visitors, views and series keep their day sets and range index (query.ts, series.ts);
 * a filter sends them here. Raw events older than the retention are purged, so these answer only
 * over the retained ones (docs/analytics.md).
 */
import type { AgentRow, ReferrerRow } from './breakdowns.ts';
import { sql, type Expression, type Kysely, type SelectQueryBuilder, type SqlBool } from 'kysely';
import type { Database } from '../../storage/schema.ts';
import { inSnapshot } from '../../storage/snapshot.ts';
import { sortByCodePoint } from '../../lib/code-point-order.ts';
import { agentIdentity, claimsKnownAgent, isMcpUserAgent } from '../ingest/agent-identity.ts';
import type { AgentCategory } from '../ingest/agents/load.ts';
import { Verification } from '../model/verification.ts';
import { existingProjectKey, pathNames } from '../ingest/dense-ids.ts';
import { unknownValue } from '../ingest/dimensions/user-agents.ts';
import { referrerCategory } from '../ingest/referrers.ts';
import { ClassCode } from '../model/class-codes.ts';
import { dayMs, dayOf } from '../model/days.ts';
import type { QueryState } from './caches.ts';
import { userAgents } from './read-sources.ts';
import type { Counts, Measure } from './types.ts';
import { dayBreakdown, dayFilteredCounts, dimensionDaysComplete, directSourceValue, filterKey } from './dimension-days.ts';
import { valueRanking } from './value-pages.ts';

export const breakdownProperties = ['country', 'browser', 'os', 'device', 'source', 'entry_page'] as const;
export type BreakdownProperty = (typeof breakdownProperties)[number];
export const filterProperties = ['path', 'country', 'browser', 'os', 'device', 'source', 'agent', 'category'] as const;
export type FilterProperty = (typeof filterProperties)[number];
export type ViewClass = 'human' | 'ai' | 'all';

/** The source of a visit whose first view came from no other site. */
export const directSource = directSourceValue;

export interface Filter {
  property: FilterProperty;
  value: string;
}

/** The events of a project's range that count, as one query with the joins the dimensions need. */
type Events = SelectQueryBuilder<
  Database & { e: Database['analytics_events']; t: Database['analytics_agent_traits']; p: Database['analytics_paths']; r: Database['analytics_referrers'] },
  'e' | 't' | 'p' | 'r',
  object
>;

/** The value of a property per view, as SQL. */
const values: Record<BreakdownProperty, Expression<string | null>> = {
  country: sql<string | null>`e.country`,
  browser: sql<string>`coalesce(t.browser, ${unknownValue})`,
  os: sql<string>`coalesce(t.os, ${unknownValue})`,
  device: sql<string>`case when e.counted = ${ClassCode.ai} then 'bot' else coalesce(t.device, 'desktop') end`,
  source: sql<string>`coalesce(r.host, ${directSource})`,
  entry_page: sql<string>`p.path`,
};

function countedEvents(trx: Kysely<Database>, projectKey: number, from: number, to: number, viewClass: ViewClass | 'any'): Events {
  let query = trx
    .selectFrom('analytics_events as e')
    .leftJoin('analytics_agent_traits as t', 't.agent_id', 'e.agent_id')
    .leftJoin('analytics_paths as p', (join) => join.onRef('p.project_key', '=', 'e.project_key').onRef('p.path_id', '=', 'e.path_id'))
    .leftJoin('analytics_referrers as r', 'r.referrer_id', 'e.source_id')
    .where('e.project_key', '=', projectKey)
    // The (project, UTC day) bounds let the database use its day index; `at` bounds the partial days.
    .where(sql<number>`e.at / ${sql.lit(dayMs)}`, '>=', dayOf(from))
    .where(sql<number>`e.at / ${sql.lit(dayMs)}`, '<=', dayOf(to - 1))
    .where('e.at', '>=', from)
    .where('e.at', '<', to);
  if (viewClass === 'human') query = query.where('e.counted', '=', ClassCode.human);
  else if (viewClass === 'ai') query = query.where('e.counted', '=', ClassCode.ai);
  else if (viewClass === 'all') query = query.where('e.counted', 'is not', null);
  return query as unknown as Events;
}

/**
 * The condition each filter sets, all of them together. Agent and category filters are decided by the
 * agents list in code: the AI views' agent ids in the range are looked up, and those whose agent
 * matches are kept (empty: nothing matches).
 */
async function filterConditions(
  trx: Kysely<Database>,
  state: QueryState,
  projectKey: number,
  from: number,
  to: number,
  filters: Filter[],
  agentsDecidedBy: 'sql' | 'caller' = 'sql',
) {
  const conditions: Expression<SqlBool>[] = [];
  const agentFilters = filters.filter((filter) => filter.property === 'agent' || filter.property === 'category');
  if (agentFilters.length > 0 && agentsDecidedBy === 'sql') {
    const ids = await countedEvents(trx, projectKey, from, to, 'ai').select('e.agent_id').distinct().execute();
    const agents = await userAgents(trx, state.ids, new Set(ids.map((row) => Number(row.agent_id))));
    const kept = [...agents]
      .filter(([, userAgent]) => {
        const identity = agentIdentity(userAgent);
        return agentFilters.every((filter) => (filter.property === 'agent' ? identity.name === filter.value : identity.category === filter.value));
      })
      .map(([id]) => id);
    conditions.push(sql<SqlBool>`e.counted = ${ClassCode.ai}`);
    conditions.push(kept.length === 0 ? sql<SqlBool>`1 = 0` : sql<SqlBool>`e.agent_id in (${sql.join(kept)})`);
  }
  for (const filter of filters) {
    switch (filter.property) {
      case 'path':
        conditions.push(sql<SqlBool>`p.path = ${filter.value}`);
        break;
      case 'country':
        conditions.push(sql<SqlBool>`e.country = ${filter.value}`);
        break;
      case 'browser':
      case 'os':
      case 'device':
      case 'source':
        conditions.push(sql<SqlBool>`${values[filter.property]} = ${filter.value}`);
        break;
    }
  }
  return conditions;
}

function withConditions(query: Events, conditions: Expression<SqlBool>[]): Events {
  return conditions.reduce((filtered, condition) => filtered.where(condition), query);
}

/**
 * `text` compared by code point, whatever the database's or the column's collation, so ties are ordered as the
 * unfiltered answers order them in memory (lib/code-point-order.ts).
 */
const byCodePoint = (state: QueryState, text: Expression<string | null>) => sql<string>`(${text}) collate ${sql.raw(state.storage.profile.codePointCollation)}`;

export interface DimensionRow {
  value: string;
  visitors: number;
  views: number;
}

export interface DimensionPage {
  totals: { visitors: number; views: number };
  results: DimensionRow[];
  hasMore: boolean;
}

export interface RangeRequest {
  from: number;
  to: number;
  filters: Filter[];
}

const emptyPage: DimensionPage = { totals: { visitors: 0, views: 0 }, results: [], hasMore: false };

/**
 * One page of a breakdown: distinct visitors and views per value, ordered by visitors descending then
 * value by code point. For `entry_page` the views are entrances (views that began a visit). Views
 * without a country (no address, or one in no published range) are in the totals but in no country's row.
 */
export async function dimensionBreakdown(
  state: QueryState,
  projectId: string,
  request: RangeRequest & { property: BreakdownProperty; viewClass: ViewClass; limit: number; offset: number },
): Promise<DimensionPage> {
  const key = await existingProjectKey(state.storage.db, state.ids, projectId);
  if (key === undefined) return emptyPage;
  return inSnapshot(state.storage, async (trx) => {
    if (request.filters.length === 0) {
      const { complete, version } = await dimensionDaysComplete(trx, key);
      if (complete) {
        const whole = await dayBreakdown(trx, state, key, version, request.property, request.viewClass, request.from, request.to);
        const results = whole.rows.slice(request.offset, request.offset + request.limit);
        return { totals: whole.totals, results, hasMore: request.offset + results.length < whole.rows.length };
      }
    }
    const conditions = await filterConditions(trx, state, key, request.from, request.to, request.filters);
    let events = withConditions(countedEvents(trx, key, request.from, request.to, request.viewClass), conditions);
    if (request.property === 'entry_page') events = events.where('e.entry', '=', 1);
    const value = values[request.property];
    const totals = await events.select([sql<number>`count(distinct e.visitor_id)`.as('visitors'), sql<number>`count(*)`.as('views')]).executeTakeFirstOrThrow();
    const rows = await events
      .where(value, 'is not', null)
      .select([byCodePoint(state, value).as('value'), sql<number>`count(distinct e.visitor_id)`.as('visitors'), sql<number>`count(*)`.as('views')])
      .groupBy(sql`1`)
      .orderBy(sql`2`, 'desc')
      .orderBy(sql`1`, 'asc')
      .limit(request.limit + 1)
      .offset(request.offset)
      .execute();
    const results = rows.slice(0, request.limit).map((row) => ({ value: row.value, visitors: Number(row.visitors), views: Number(row.views) }));
    return { totals: { visitors: Number(totals.visitors), views: Number(totals.views) }, results, hasMore: rows.length > request.limit };
  });
}

/** The filter when it is one country or one source, which the breakdown days answer (dimension-days.ts); else null. */
function singleValueFilter(filters: Filter[]): { property: 'country' | 'source'; value: string } | null {
  if (filters.length !== 1) return null;
  const [filter] = filters;
  return filter.property === 'country' || filter.property === 'source' ? { property: filter.property, value: filter.value } : null;
}

const classCounts = (measure: Measure) =>
  measure === 'visitors'
    ? [
        sql<number>`count(distinct case when e.counted = ${ClassCode.human} then e.visitor_id end)`.as('human'),
        sql<number>`count(distinct case when e.counted = ${ClassCode.ai} then e.visitor_id end)`.as('ai'),
        sql<number>`count(distinct e.visitor_id)`.as('total'),
      ]
    : [
        sql<number>`sum(case when e.counted = ${ClassCode.human} then 1 else 0 end)`.as('human'),
        sql<number>`sum(case when e.counted = ${ClassCode.ai} then 1 else 0 end)`.as('ai'),
        sql<number>`count(*)`.as('total'),
      ];

const counts = (row: { human: unknown; ai: unknown; total: unknown } | undefined): Counts => ({
  human: Number(row?.human ?? 0),
  ai: Number(row?.ai ?? 0),
  total: Number(row?.total ?? 0),
});

/** Site-wide visitors or views of a range under filters. */
export async function filteredTotals(state: QueryState, projectId: string, measure: Measure, request: RangeRequest): Promise<Counts> {
  const key = await existingProjectKey(state.storage.db, state.ids, projectId);
  if (key === undefined) return { human: 0, ai: 0, total: 0 };
  return inSnapshot(state.storage, async (trx) => {
    const single = singleValueFilter(request.filters);
    if (single !== null && (await dimensionDaysComplete(trx, key)).complete)
      return (await dayFilteredCounts(trx, state, key, single, measure, request.from, request.to, false)).totals;
    const conditions = await filterConditions(trx, state, key, request.from, request.to, request.filters);
    const row = await withConditions(countedEvents(trx, key, request.from, request.to, 'all'), conditions)
      .select(classCounts(measure))
      .executeTakeFirst();
    return counts(row);
  });
}

/**
 * A page of visitors or views per path under filters, ordered as `/visitors` is (total descending, then path by
 * code point). A `limit` of `Infinity` asks for every row, counted in one snapshot (the dashboard's CSV export):
 * the ranking is computed once instead of once per page.
 */
export async function filteredPage(
  state: QueryState,
  projectId: string,
  measure: Measure,
  request: RangeRequest & { limit: number; offset: number },
): Promise<{ totals: Counts; rows: (Counts & { path: string })[]; hasMore: boolean }> {
  const key = await existingProjectKey(state.storage.db, state.ids, projectId);
  if (key === undefined) return { totals: { human: 0, ai: 0, total: 0 }, rows: [], hasMore: false };
  return inSnapshot(state.storage, async (trx) => {
    const single = singleValueFilter(request.filters);
    if (single !== null) {
      const { version } = await dimensionDaysComplete(trx, key);
      const valueKey = await filterKey(trx, single.property, single.value);
      if (valueKey === undefined) return { totals: { human: 0, ai: 0, total: 0 }, rows: [], hasMore: false };
      const range = { from: request.from, to: request.to, wanted: request.offset + request.limit };
      const ranked = await valueRanking(trx, state, key, version, { property: single.property, valueKey }, measure, range);
      const shown = ranked.rows.slice(request.offset, request.offset + request.limit);
      const names = await pathNames(
        trx,
        state.ids,
        key,
        shown.map((row) => row.pathId),
      );
      const rows = shown.map(({ pathId, human, ai, total }) => ({ path: names.get(pathId)!, human, ai, total }));
      return { totals: ranked.totals, rows, hasMore: request.offset + rows.length < ranked.count };
    }
    const conditions = await filterConditions(trx, state, key, request.from, request.to, request.filters);
    const events = withConditions(countedEvents(trx, key, request.from, request.to, 'all'), conditions);
    const totals = counts(await events.select(classCounts(measure)).executeTakeFirst());
    const ranked = events
      .select([sql<string>`p.path`.as('path'), ...classCounts(measure)])
      .groupBy('p.path')
      .orderBy(sql`4`, 'desc')
      .orderBy(byCodePoint(state, sql`p.path`), 'asc');
    // A page asks for one row more than it shows, to know whether more follow; every row is the query without a limit.
    const rows = Number.isFinite(request.limit)
      ? await ranked
          .limit(request.limit + 1)
          .offset(request.offset)
          .execute()
      : (await ranked.execute()).slice(request.offset);
    return {
      totals,
      rows: rows.slice(0, request.limit).map((row) => ({ path: row.path, ...counts(row) })),
      hasMore: rows.length > request.limit,
    };
  });
}

/** Counts per UTC day overlapping the range under filters, oldest first, zeros included. */
export async function filteredSeries(state: QueryState, projectId: string, measure: Measure, request: RangeRequest): Promise<(Counts & { day: number })[]> {
  const days: (Counts & { day: number })[] = [];
  for (let day = dayOf(request.from); day * dayMs < request.to; day++) days.push({ day, human: 0, ai: 0, total: 0 });
  const key = await existingProjectKey(state.storage.db, state.ids, projectId);
  if (key === undefined) return days;
  const rows = await inSnapshot(state.storage, async (trx) => {
    const single = singleValueFilter(request.filters);
    if (single !== null && (await dimensionDaysComplete(trx, key)).complete) {
      const counted = await dayFilteredCounts(trx, state, key, single, measure, request.from, request.to, true);
      return [...counted.days].map(([day, dayCounts]) => ({ day, ...dayCounts }));
    }
    const conditions = await filterConditions(trx, state, key, request.from, request.to, request.filters);
    return withConditions(countedEvents(trx, key, request.from, request.to, 'all'), conditions)
      .select([sql<number>`e.at / ${sql.lit(dayMs)}`.as('day'), ...classCounts(measure)])
      .groupBy(sql`1`)
      .execute();
  });
  for (const row of rows) Object.assign(days[Number(row.day) - days[0].day], counts(row));
  return days;
}

/** Human views per referring site under filters (the referrers breakdown with filters), with each site's category. */
export async function filteredReferrers(
  state: QueryState,
  projectId: string,
  request: RangeRequest & { limit: number; offset: number },
): Promise<{ totals: { visitors: number; views: number }; rows: ReferrerRow[]; hasMore: boolean }> {
  const key = await existingProjectKey(state.storage.db, state.ids, projectId);
  if (key === undefined) return { totals: { visitors: 0, views: 0 }, rows: [], hasMore: false };
  return inSnapshot(state.storage, async (trx) => {
    const conditions = await filterConditions(trx, state, key, request.from, request.to, request.filters);
    const events = withConditions(countedEvents(trx, key, request.from, request.to, 'human'), conditions)
      .innerJoin('analytics_referrers as v', 'v.referrer_id', 'e.referrer_id')
      .where('e.referrer_id', 'is not', null);
    const totals = await events.select([sql<number>`count(distinct e.visitor_id)`.as('visitors'), sql<number>`count(*)`.as('views')]).executeTakeFirstOrThrow();
    const rows = await events
      .select([sql<string>`v.host`.as('referrer'), sql<number>`count(distinct e.visitor_id)`.as('visitors'), sql<number>`count(*)`.as('views')])
      .groupBy('v.host')
      .orderBy(sql`3`, 'desc')
      .orderBy(byCodePoint(state, sql`v.host`), 'asc')
      .limit(request.limit + 1)
      .offset(request.offset)
      .execute();
    return {
      totals: { visitors: Number(totals.visitors), views: Number(totals.views) },
      rows: rows
        .slice(0, request.limit)
        .map((row) => ({ referrer: row.referrer, category: referrerCategory(row.referrer), visitors: Number(row.visitors), views: Number(row.views) })),
      hasMore: rows.length > request.limit,
    };
  });
}

/** Who is on the site now: distinct visitors of the last five minutes, by class and per page. */
export async function realtime(
  state: QueryState,
  projectId: string,
  now = Date.now(),
): Promise<{ visitors: Counts; pages: { path: string; visitors: number }[] }> {
  const key = await existingProjectKey(state.storage.db, state.ids, projectId);
  if (key === undefined) return { visitors: { human: 0, ai: 0, total: 0 }, pages: [] };
  return inSnapshot(state.storage, async (trx) => {
    const events = countedEvents(trx, key, now - 5 * 60_000, now + 1, 'all');
    const visitors = counts(await events.select(classCounts('visitors')).executeTakeFirst());
    const pages = await events
      .select([sql<string>`p.path`.as('path'), sql<number>`count(distinct e.visitor_id)`.as('visitors')])
      .groupBy('p.path')
      .orderBy(sql`2`, 'desc')
      .orderBy(byCodePoint(state, sql`p.path`), 'asc')
      .limit(50)
      .execute();
    return { visitors, pages: pages.map((row) => ({ path: row.path, visitors: Number(row.visitors) })) };
  });
}

/**
 * The agents breakdown under filters: AI views and spoofed claims matching the filters other than
 * agent and category, grouped per agent, visitor and verification in SQL, then per agent identity
 * here (an identity spans user agents), where agent and category filters apply.
 */
export async function filteredAgents(
  state: QueryState,
  projectId: string,
  request: RangeRequest & { category?: AgentCategory; limit: number; offset: number },
): Promise<{ totals: { visitors: number; views: number }; rows: AgentRow[]; hasMore: boolean }> {
  const key = await existingProjectKey(state.storage.db, state.ids, projectId);
  if (key === undefined) return { totals: { visitors: 0, views: 0 }, rows: [], hasMore: false };
  const grouped = await inSnapshot(state.storage, async (trx) => {
    const conditions = await filterConditions(trx, state, key, request.from, request.to, request.filters, 'caller');
    const events = withConditions(countedEvents(trx, key, request.from, request.to, 'any'), conditions).where((eb) =>
      eb.or([eb('e.counted', '=', ClassCode.ai), eb.and([eb('e.counted', 'is', null), eb('e.verification', '=', Verification.spoofed)])]),
    );
    const rows = await events
      .select(['e.agent_id', 'e.visitor_id', 'e.verification', 'e.counted', sql<number>`count(*)`.as('views')])
      .groupBy(['e.agent_id', 'e.visitor_id', 'e.verification', 'e.counted'])
      .execute();
    return { rows, agents: await userAgents(trx, state.ids, new Set(rows.map((row) => Number(row.agent_id)))) };
  });
  const agentFilters = request.filters.filter((filter) => filter.property === 'agent' || filter.property === 'category');
  const byName = new Map<string, AgentRow & { visitorSet: Set<number> }>();
  const allVisitors = new Set<number>();
  let allViews = 0;
  for (const row of grouped.rows) {
    const userAgent = grouped.agents.get(Number(row.agent_id))!;
    const identity = agentIdentity(userAgent);
    if (request.category !== undefined && identity.category !== request.category) continue;
    if (!agentFilters.every((filter) => (filter.property === 'agent' ? identity.name === filter.value : identity.category === filter.value))) continue;
    const spoofed = row.counted === null;
    if (spoofed && !claimsKnownAgent(userAgent)) continue;
    let entry = byName.get(identity.name);
    if (!entry) {
      entry = {
        agent: identity.name,
        operator: identity.operator,
        category: identity.category,
        visitors: 0,
        views: 0,
        verifiedViews: 0,
        spoofedViews: 0,
        mcpViews: 0,
        visitorSet: new Set(),
      };
      byName.set(identity.name, entry);
    }
    const views = Number(row.views);
    if (spoofed) {
      entry.spoofedViews += views;
      continue;
    }
    entry.visitorSet.add(Number(row.visitor_id));
    entry.views += views;
    if (Number(row.verification) === Verification.verified) entry.verifiedViews += views;
    if (isMcpUserAgent(userAgent)) entry.mcpViews += views;
    allVisitors.add(Number(row.visitor_id));
    allViews += views;
  }
  const ordered = sortByCodePoint(
    [...byName.values()].map(({ visitorSet, ...row }) => ({ ...row, visitors: visitorSet.size })),
    (a, b) => b.views - a.views,
    (row) => row.agent,
  );
  const rows = ordered.slice(request.offset, request.offset + request.limit);
  return { totals: { visitors: allVisitors.size, views: allViews }, rows, hasMore: request.offset + rows.length < ordered.length };
}
