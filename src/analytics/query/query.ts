import { inSnapshot } from '../../storage/snapshot.ts';
import { existingProjectKey, pathNames } from '../ingest/dense-ids.ts';
import type { QueryState } from './caches.ts';
import { order, rank } from './exact-counts.ts';
import type { Counts, Measure, Ranking, SplitRanking } from './types.ts';
import { freshIndex, indexedVisitors, readSources } from './read-sources.ts';
import { splitRange } from '../model/days.ts';

export interface PageRequest {
  measure: Measure;
  from: number;
  to: number;
  limit: number;
  offset: number;
}

export interface Page {
  totals: Counts;
  rows: (Counts & { path: string })[];
  hasMore: boolean;
}

const empty: Ranking = { totals: { human: 0, ai: 0, total: 0 }, rows: [] };

/**
 * The full ranking of a range, computed once per data version: a repeated query, or the next page,
 * is a slice of the cached ranking. The version, day sets, pending batches and raw events are read
 * in one snapshot, so the cached answer is exactly the answer of that version.
 */
export async function ranking(
  state: QueryState,
  projectId: string,
  measure: Measure,
  from: number,
  to: number,
): Promise<{ ranking: SplitRanking; names: Map<number, string> }> {
  const { storage, ids, caches } = state;
  const key = await existingProjectKey(storage.db, ids, projectId);
  if (key === undefined) return { ranking: empty, names: new Map() };
  return inSnapshot(storage, async (trx) => {
    const { version } = await trx.selectFrom('analytics_projects').select('version').where('project_key', '=', key).executeTakeFirstOrThrow();
    const cacheKey = `${key}:${measure}:${from}:${to}`;
    const cached = caches.cachedRanking<NamedRanking>(cacheKey, Number(version));
    if (cached) return cached;
    const indexed = measure === 'visitors' ? await indexedVisitors(trx, state, key, from, to) : null;
    const computed: SplitRanking = indexed ?? rank(await readSources(trx, state, key, from, to), measure);
    const names = await pathNames(
      trx,
      ids,
      key,
      computed.rows.map((row) => row.pathId),
    );
    // With its paths' names: the process's cache of names is bounded, so it may no longer hold them when a page is cut.
    const named: NamedRanking = { ranking: { ...order(computed, names), split: computed.split }, names };
    caches.storeRanking(cacheKey, Number(version), named);
    return named;
  });
}

/** A ranking and the names of its paths, as cached. */
interface NamedRanking {
  ranking: SplitRanking;
  names: Map<number, string>;
}

/**
 * Site-wide totals of a range, as the previous period of `compare=previous_period` asks: the cached
 * ranking's totals when there is one, else, for visitors, the range index's site-wide cells alone (a
 * search per day and class instead of one per path), else the ranking.
 */
export async function totals(state: QueryState, projectId: string, measure: Measure, from: number, to: number): Promise<Counts> {
  const key = await existingProjectKey(state.storage.db, state.ids, projectId);
  if (key === undefined) return empty.totals;
  const found = await inSnapshot(state.storage, async (trx) => {
    const { version } = await trx.selectFrom('analytics_projects').select('version').where('project_key', '=', key).executeTakeFirstOrThrow();
    const cached = state.caches.cachedRanking<NamedRanking>(`${key}:${measure}:${from}:${to}`, Number(version));
    if (cached) return cached.ranking.totals;
    const { firstDay, endDay, partial } = splitRange(from, to);
    if (measure !== 'visitors' || partial.length > 0 || endDay <= firstDay) return null;
    return (await freshIndex(trx, state, key, firstDay, endDay))?.siteTotals(firstDay, endDay) ?? null;
  });
  return found ?? (await ranking(state, projectId, measure, from, to)).ranking.totals;
}

/** A page of the cached ranking; a `limit` of `Infinity` is every row (the dashboard's CSV export). */
export async function page(state: QueryState, projectId: string, request: PageRequest): Promise<Page> {
  const { ranking: computed, names } = await ranking(state, projectId, request.measure, request.from, request.to);
  const rows = computed.rows.slice(request.offset, request.offset + request.limit).map((row) => {
    computed.split?.(row);
    return { path: names.get(row.pathId)!, human: row.human, ai: row.ai, total: row.total };
  });
  return { totals: computed.totals, rows, hasMore: request.offset + rows.length < computed.rows.length };
}

/**
 * Visitors or views of one page, as a `path==` filter alone asks: that path's row of the range's
 * ranking, which the day sets and range index answer (its counts are the totals of the views on the
 * page), instead of a scan of the raw events.
 */
export async function pathPage(state: QueryState, projectId: string, request: PageRequest & { path: string }): Promise<Page> {
  const { ranking: computed, names } = await ranking(state, projectId, request.measure, request.from, request.to);
  const row = computed.rows.find((candidate) => names.get(candidate.pathId) === request.path);
  if (row === undefined) return { totals: { human: 0, ai: 0, total: 0 }, rows: [], hasMore: false };
  computed.split?.(row);
  const totals = { human: row.human, ai: row.ai, total: row.total };
  return { totals, rows: request.offset === 0 && request.limit > 0 ? [{ path: request.path, ...totals }] : [], hasMore: false };
}
