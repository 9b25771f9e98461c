import type { Kysely } from 'kysely';
import { compareCodePoints } from '../../lib/code-point-order.ts';
import type { Storage } from '../../storage/dialect.ts';
import type { Database } from '../../storage/schema.ts';
import { inSnapshot } from '../../storage/snapshot.ts';
import { splitRange } from '../model/days.ts';
import { topQueries, type Measure, type PartialSearches, type Ranked } from './top-queries.ts';

export interface SearchSummary {
  searchQuery: string;
  searches: number;
  /** Results shown by the latest search of the query in the range. */
  hits: number;
  /** Searches followed by a click, over searches (0 to 1). */
  ctr: number;
  topClickedPage: string | null;
  lastSearchedAt: string;
  /** Searches that found nothing. */
  noHits: number;
}

async function partialSearches(trx: Kysely<Database>, projectKey: number, spans: [number, number][]): Promise<PartialSearches> {
  const byQuery: PartialSearches['byQuery'] = new Map();
  if (spans.length === 0) return { byQuery };
  const rows = await trx
    .selectFrom('analytics_searches')
    .select(['query', 'at', 'hits', 'clicked_path'])
    .where('project_key', '=', projectKey)
    .where((eb) => eb.or(spans.map(([start, end]) => eb.and([eb('at', '>=', start), eb('at', '<', end)]))))
    .execute();
  for (const row of rows) {
    let entry = byQuery.get(row.query);
    if (!entry) byQuery.set(row.query, (entry = { searches: 0, clicked: 0, noHits: 0, lastAt: -1, lastHits: 0, clicks: new Map() }));
    const at = Number(row.at);
    entry.searches++;
    if (Number(row.hits) === 0) entry.noHits++;
    if (at >= entry.lastAt) [entry.lastAt, entry.lastHits] = [at, Number(row.hits)];
    if (row.clicked_path !== null) {
      entry.clicked++;
      entry.clicks.set(row.clicked_path, (entry.clicks.get(row.clicked_path) ?? 0) + 1);
    }
  }
  return { byQuery };
}

/** Everything the page's queries show, from their day rows, clicked pages and the partial days. */
async function summaries(
  trx: Kysely<Database>,
  projectKey: number,
  days: { firstDay: number; endDay: number },
  partial: PartialSearches,
  ranked: Ranked[],
): Promise<SearchSummary[]> {
  const queries = ranked.map((row) => row.query);
  const totals = new Map(queries.map((query) => [query, { searches: 0, clicked: 0, noHits: 0, lastAt: -1, lastHits: 0, clicks: new Map<string, number>() }]));
  for (const [query, entry] of partial.byQuery) {
    const total = totals.get(query);
    if (total) Object.assign(total, { ...entry, clicks: new Map(entry.clicks) });
  }
  if (queries.length > 0 && days.endDay > days.firstDay) {
    const rows = await trx
      .selectFrom('analytics_search_days')
      .select(['query', 'searches', 'clicked', 'no_hits', 'last_at', 'last_hits'])
      .where('project_key', '=', projectKey)
      .where('day', '>=', days.firstDay)
      .where('day', '<', days.endDay)
      .where('query', 'in', queries)
      .execute();
    for (const row of rows) {
      const total = totals.get(row.query)!;
      total.searches += Number(row.searches);
      total.clicked += Number(row.clicked);
      total.noHits += Number(row.no_hits);
      if (Number(row.last_at) >= total.lastAt) [total.lastAt, total.lastHits] = [Number(row.last_at), Number(row.last_hits)];
    }
    const clicks = await trx
      .selectFrom('analytics_search_clicks')
      .select((eb) => ['query', 'path', eb.fn.sum<number>('clicks').as('clicks')])
      .where('project_key', '=', projectKey)
      .where('day', '>=', days.firstDay)
      .where('day', '<', days.endDay)
      .where('query', 'in', queries)
      .groupBy(['query', 'path'])
      .execute();
    for (const row of clicks) {
      const pages = totals.get(row.query)!.clicks;
      pages.set(row.path, (pages.get(row.path) ?? 0) + Number(row.clicks));
    }
  }
  return queries.map((query) => {
    const total = totals.get(query)!;
    let top: [string, number] | null = null;
    for (const [path, count] of total.clicks) if (!top || count > top[1] || (count === top[1] && compareCodePoints(path, top[0]) < 0)) top = [path, count];
    return {
      searchQuery: query,
      searches: total.searches,
      hits: total.lastHits,
      ctr: total.searches === 0 ? 0 : Math.round((total.clicked / total.searches) * 10_000) / 10_000,
      topClickedPage: top?.[0] ?? null,
      lastSearchedAt: new Date(Math.max(0, total.lastAt)).toISOString(),
      noHits: total.noHits,
    };
  });
}

/**
 * Distinct queries of [from, to) ranked by `measure` (searches, or searches without hits) descending,
 * then query ascending, after `cursor` (the last row's `[count, query]`), and the range's total
 * searches. Whole days come from the per-day aggregates (top-queries.ts), partial ones from raw searches.
 */
export async function searchesPage(
  storage: Storage,
  projectKey: number,
  options: { from: number; to: number; limit: number; cursor: [number, string] | null; measure?: Measure },
): Promise<{ searches: SearchSummary[]; totalSearches: number; next: [number, string] | null }> {
  const measure = options.measure ?? 'searches';
  return inSnapshot(storage, async (trx) => {
    const { firstDay, endDay, partial: spans } = splitRange(options.from, options.to);
    const partial = await partialSearches(trx, projectKey, spans);
    const ranked = await topQueries(trx, projectKey, { firstDay, endDay, measure, limit: options.limit, cursor: options.cursor, partial });
    let totalSearches = 0;
    for (const entry of partial.byQuery.values()) totalSearches += entry.searches;
    if (endDay > firstDay) {
      const total = await trx
        .selectFrom('analytics_search_totals')
        .select((eb) => eb.fn.sum<number>('searches').as('searches'))
        .where('project_key', '=', projectKey)
        .where('day', '>=', firstDay)
        .where('day', '<', endDay)
        .executeTakeFirst();
      totalSearches += Number(total?.searches ?? 0);
    }
    const page = await summaries(trx, projectKey, { firstDay, endDay }, partial, ranked.rows);
    const last = ranked.rows.at(-1);
    return { searches: page, totalSearches, next: ranked.hasMore && last ? [last.count, last.query] : null };
  });
}

/** Searches and searches without hits per UTC day of [firstDay, endDay), zeros included. */
export async function searchTrend(
  storage: Storage,
  projectKey: number,
  firstDay: number,
  endDay: number,
): Promise<{ day: number; searches: number; noHits: number }[]> {
  const rows = await storage.db
    .selectFrom('analytics_search_totals')
    .select(['day', 'searches', 'no_hits'])
    .where('project_key', '=', projectKey)
    .where('day', '>=', firstDay)
    .where('day', '<', endDay)
    .execute();
  const byDay = new Map(rows.map((row) => [Number(row.day), row]));
  const days = [];
  for (let day = firstDay; day < endDay; day++)
    days.push({ day, searches: Number(byDay.get(day)?.searches ?? 0), noHits: Number(byDay.get(day)?.no_hits ?? 0) });
  return days;
}
