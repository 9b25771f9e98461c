/**
 * The figures of the analytics page, read as the API reads them: unfiltered from the day sets and
 * breakdown summaries, under filters from the raw events (query/dimensions.ts).
 */
import { breakdown, type AgentRow, type Breakdown, type ReferrerRow } from '../../analytics/query/breakdowns.ts';
import { filteredAgents, filteredPage, filteredReferrers, filteredSeries, type Filter } from '../../analytics/query/dimensions.ts';
import { page, type PageRequest } from '../../analytics/query/query.ts';
import { dailySeries } from '../../analytics/query/series.ts';
import { dayMs } from '../../analytics/model/days.ts';
import type { AppContext } from '../../http/context.ts';
import type { DayCounts } from './chart.ts';

/** Enough rows for the agents table and the per-category sums under filters (one project's agents, not its visitors). */
const allAgents = 10_000;

const isoDay = (at: number) => new Date(at).toISOString().slice(0, 10);

export interface Range {
  from: number;
  to: number;
  filters: Filter[];
}

/**
 * Visitors per page, or views (one row): the day sets answer unfiltered, the raw events under filters, as in the API.
 * A `limit` of `Infinity` is every row, each ranking computed once.
 */
export const pageOf = (context: AppContext, projectId: string, measure: PageRequest['measure'], range: Range, limit: number, offset: number) =>
  range.filters.length === 0
    ? page(context.analytics, projectId, { measure, from: range.from, to: range.to, limit, offset })
    : filteredPage(context.analytics, projectId, measure, { ...range, limit, offset });

export const seriesOf = async (context: AppContext, projectId: string, range: Range): Promise<DayCounts[]> => {
  const series =
    range.filters.length === 0
      ? await dailySeries(context.analytics, projectId, 'visitors', range.from, range.to)
      : await filteredSeries(context.analytics, projectId, 'visitors', range);
  return series.map((entry) => ({ day: isoDay(entry.day * dayMs), human: entry.human, ai: entry.ai }));
};

/** Every AI agent of the range with the agents API's figures, and distinct visitors per category. */
export async function agentsOf(
  context: AppContext,
  projectId: string,
  range: Range,
): Promise<{ agents: Breakdown<AgentRow>; categoryVisitors: Map<string, number> }> {
  const read = async (category?: AgentRow['category']): Promise<Breakdown<AgentRow>> =>
    range.filters.length === 0
      ? breakdown<AgentRow>(context.analytics, projectId, { breakdown: 'agents', category }, range.from, range.to)
      : filteredAgents(context.analytics, projectId, { ...range, category, limit: allAgents, offset: 0 });
  const agents = await read();
  const categoryVisitors = new Map<string, number>();
  for (const category of new Set(agents.rows.map((row) => row.category))) categoryVisitors.set(category, (await read(category)).totals.visitors);
  return { agents, categoryVisitors };
}

export async function referrersOf(context: AppContext, projectId: string, range: Range): Promise<Breakdown<ReferrerRow>> {
  if (range.filters.length === 0) return breakdown<ReferrerRow>(context.analytics, projectId, { breakdown: 'referrers' }, range.from, range.to);
  return filteredReferrers(context.analytics, projectId, { ...range, limit: 10, offset: 0 });
}
