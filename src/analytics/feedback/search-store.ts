import type { Kysely } from 'kysely';
import type { Database } from '../../storage/schema.ts';
import type { TableWrites } from '../../storage/statistics.ts';
import { dayOf } from '../model/days.ts';
import type { PreparedInteraction, PreparedSearch } from './validate.ts';
import { noVisitor, type VisitorColumns } from './visitor.ts';

/** What a batch of searches adds to the per-day aggregates, collected in memory and written once. */
class SearchDeltas {
  readonly days = new Map<string, { day: number; query: string; searches: number; clicked: number; no_hits: number; last_at: number; last_hits: number }>();
  readonly clicks = new Map<string, { day: number; query: string; path: string; clicks: number }>();
  readonly totals = new Map<number, { day: number; searches: number; clicked: number; no_hits: number }>();

  private entry(day: number, query: string) {
    const key = `${day}\u0000${query}`;
    let entry = this.days.get(key);
    if (!entry) this.days.set(key, (entry = { day, query, searches: 0, clicked: 0, no_hits: 0, last_at: -1, last_hits: 0 }));
    let total = this.totals.get(day);
    if (!total) this.totals.set(day, (total = { day, searches: 0, clicked: 0, no_hits: 0 }));
    return { entry, total };
  }

  search(at: number, query: string, hits: number): void {
    const { entry, total } = this.entry(dayOf(at), query);
    entry.searches++;
    total.searches++;
    if (hits === 0) {
      entry.no_hits++;
      total.no_hits++;
    }
    if (at >= entry.last_at) {
      entry.last_at = at;
      entry.last_hits = hits;
    }
  }

  /** A click counts on the day of the search it follows, so a day's click-through rate is of that day's searches. */
  click(searchAt: number, query: string, path: string): void {
    const day = dayOf(searchAt);
    const { entry, total } = this.entry(day, query);
    entry.clicked++;
    total.clicked++;
    const key = `${day}\u0000${query}\u0000${path}`;
    const known = this.clicks.get(key);
    if (known) known.clicks++;
    else this.clicks.set(key, { day, query, path, clicks: 1 });
  }
}

const byKey = <T>(map: Map<string | number, T>): T[] => [...map.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, value]) => value);

/** Adds the deltas to the aggregates in key order (so concurrent PostgreSQL writers lock rows in one order); returns the rows written. */
async function applySearchDeltas(trx: Kysely<Database>, projectKey: number, deltas: SearchDeltas): Promise<TableWrites> {
  const days = byKey(deltas.days).map((entry) => ({ project_key: projectKey, ...entry }));
  for (let start = 0; start < days.length; start += 500) {
    await trx
      .insertInto('analytics_search_days')
      .values(days.slice(start, start + 500))
      .onConflict((conflict) =>
        conflict.columns(['project_key', 'day', 'query']).doUpdateSet((eb) => {
          const later = eb('excluded.last_at', '>=', eb.ref('analytics_search_days.last_at'));
          return {
            searches: eb('analytics_search_days.searches', '+', eb.ref('excluded.searches')),
            clicked: eb('analytics_search_days.clicked', '+', eb.ref('excluded.clicked')),
            no_hits: eb('analytics_search_days.no_hits', '+', eb.ref('excluded.no_hits')),
            last_hits: eb.case().when(later).then(eb.ref('excluded.last_hits')).else(eb.ref('analytics_search_days.last_hits')).end(),
            last_at: eb.case().when(later).then(eb.ref('excluded.last_at')).else(eb.ref('analytics_search_days.last_at')).end(),
          };
        }),
      )
      .execute();
  }
  const clicks = byKey(deltas.clicks).map((entry) => ({ project_key: projectKey, ...entry }));
  for (let start = 0; start < clicks.length; start += 500) {
    await trx
      .insertInto('analytics_search_clicks')
      .values(clicks.slice(start, start + 500))
      .onConflict((conflict) =>
        conflict
          .columns(['project_key', 'day', 'query', 'path'])
          .doUpdateSet((eb) => ({ clicks: eb('analytics_search_clicks.clicks', '+', eb.ref('excluded.clicks')) })),
      )
      .execute();
  }
  const totals = byKey(deltas.totals).map((entry) => ({ project_key: projectKey, ...entry }));
  if (totals.length > 0)
    await trx
      .insertInto('analytics_search_totals')
      .values(totals)
      .onConflict((conflict) =>
        conflict.columns(['project_key', 'day']).doUpdateSet((eb) => ({
          searches: eb('analytics_search_totals.searches', '+', eb.ref('excluded.searches')),
          clicked: eb('analytics_search_totals.clicked', '+', eb.ref('excluded.clicked')),
          no_hits: eb('analytics_search_totals.no_hits', '+', eb.ref('excluded.no_hits')),
        })),
      )
      .execute();
  return { analytics_search_days: days.length, analytics_search_clicks: clicks.length, analytics_search_totals: totals.length };
}

/** Inserts searches; those whose `searchId` is already stored are skipped (the first one stands). Returns the inserted ones. */
async function insertSearches(
  trx: Kysely<Database>,
  projectKey: number,
  searches: PreparedSearch[],
  visitors: ReadonlyMap<PreparedInteraction, VisitorColumns>,
): Promise<PreparedSearch[]> {
  const inserted: PreparedSearch[] = [];
  for (let start = 0; start < searches.length; start += 500) {
    const chunk = searches.slice(start, start + 500);
    const rows = await trx
      .insertInto('analytics_searches')
      .values(
        chunk.map((search) => ({
          project_key: projectKey,
          at: search.at,
          query: search.query,
          hits: search.hits,
          search_key: search.searchId,
          clicked_path: search.clickedPath,
          ...(visitors.get(search) ?? noVisitor),
        })),
      )
      .onConflict((conflict) => conflict.columns(['project_key', 'search_key']).where('search_key', 'is not', null).doNothing())
      .returning('search_key')
      .execute();
    const keyed = new Set(rows.map((row) => row.search_key).filter((key) => key !== null));
    // Rows without a key are always inserted; a keyed one only when its key came back (first of its key).
    for (const search of chunk) {
      if (search.searchId === null) inserted.push(search);
      else if (keyed.delete(search.searchId)) inserted.push(search);
    }
  }
  return inserted;
}

/**
 * Stores searches inside `trx` and updates the aggregates. An event with a `searchId` already stored
 * and a `clickedPath` is the click of that search: it marks the search clicked (its first click only)
 * instead of counting a new search; with an unknown `searchId`, it is a new search that was clicked.
 * A new search keeps its sender's columns from `visitors` (visitor.ts). Returns the rows written.
 */
export async function storeSearches(
  trx: Kysely<Database>,
  projectKey: number,
  events: PreparedSearch[],
  visitors: ReadonlyMap<PreparedInteraction, VisitorColumns>,
): Promise<TableWrites> {
  if (events.length === 0) return {};
  const deltas = new SearchDeltas();
  const clicks = events.filter((event) => event.searchId !== null && event.clickedPath !== null);
  const known = new Set<string>();
  for (let start = 0; start < clicks.length; start += 500) {
    const keys = clicks.slice(start, start + 500).map((event) => event.searchId!);
    const rows = await trx
      .selectFrom('analytics_searches')
      .select('search_key')
      .where('project_key', '=', projectKey)
      .where('search_key', 'in', keys)
      .execute();
    for (const row of rows) known.add(row.search_key!);
  }
  const searches = events.filter((event) => !(event.searchId !== null && event.clickedPath !== null && known.has(event.searchId)));
  const inserted = new Set(await insertSearches(trx, projectKey, searches, visitors));
  for (const search of inserted) {
    deltas.search(search.at, search.query, search.hits);
    if (search.clickedPath !== null) deltas.click(search.at, search.query, search.clickedPath);
  }
  // The other clicks follow a stored search (of an earlier request, or earlier in this one).
  let marks = 0;
  for (const click of clicks.filter((event) => !inserted.has(event))) {
    const marked = await trx
      .updateTable('analytics_searches')
      .set({ clicked_path: click.clickedPath })
      .where('project_key', '=', projectKey)
      .where('search_key', '=', click.searchId)
      .where('clicked_path', 'is', null)
      .returning(['at', 'query'])
      .executeTakeFirst();
    if (!marked) continue;
    marks++;
    deltas.click(Number(marked.at), marked.query, click.clickedPath!);
  }
  const written = await applySearchDeltas(trx, projectKey, deltas);
  return { ...written, analytics_searches: inserted.size + marks };
}
