import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { Kysely } from 'kysely';
import type { Database } from '../../storage/schema.ts';
import { inSnapshot } from '../../storage/snapshot.ts';
import { encodeDaySet, sortedDistinct, type DaySet, type PathEntry } from '../model/day-set.ts';
import type { QueryState } from './caches.ts';
import { dayMs } from '../model/days.ts';
import { rawEventsIn } from './read-sources.ts';
import { dayFingerprints, valueKeyOf, valuePageCacheKey, valueProperties } from './value-pages.ts';

/**
 * Raw events are read an hour at a time, each part in its own short snapshot, yielding between parts: on
 * SQLite a snapshot holds the only connection and a read blocks the thread, so one read of a busy day
 * would stall ingestion and queries for as long (about 5,000 rows an hour at the bench's full scale).
 */
const partsPerDay = 24;

/** Each (property, value, class)'s pages of a day as read from raw events, keyed `(value × 2 + property) × 2 + class`. */
type Collected = Map<number, { property: number; valueKey: number; classCode: number; pages: Map<number, { visitors: number[]; views: number }> }>;

function collect(collected: Collected, property: number, valueKey: number, classCode: number, pathId: number, visitor: number): void {
  const key = (valueKey * 2 + property) * 2 + classCode;
  let group = collected.get(key);
  if (!group) collected.set(key, (group = { property, valueKey, classCode, pages: new Map() }));
  let page = group.pages.get(pathId);
  if (!page) group.pages.set(pathId, (page = { visitors: [], views: 0 }));
  page.visitors.push(visitor);
  page.views++;
}

/** The decoded form of `entries`, as `decodeDaySet` would give after encoding them (paths ascending). */
function daySetOf(entries: Map<number, PathEntry>): DaySet {
  const paths = Uint32Array.from([...entries.keys()].sort((a, b) => a - b));
  const views = new Uint32Array(paths.length);
  const starts = new Uint32Array(paths.length + 1);
  paths.forEach((pathId, index) => {
    views[index] = entries.get(pathId)!.views;
    starts[index + 1] = starts[index] + entries.get(pathId)!.visitors.length;
  });
  const visitors = new Uint32Array(starts[paths.length]);
  paths.forEach((pathId, index) => visitors.set(entries.get(pathId)!.visitors, starts[index]));
  return { paths, views, starts, visitors };
}

/**
 * Computes one day's value pages from its raw events and stores them under the fingerprint the day had
 * before and after the reads; when the day changed meanwhile, nothing is stored (the next round retries).
 */
async function buildDay(state: Pick<QueryState, 'storage' | 'caches'>, projectKey: number, day: number): Promise<boolean> {
  const { storage } = state;
  const fingerprint = (trx: Kysely<Database>) => dayFingerprints(trx, projectKey, day, day + 1).then((prints) => prints.get(day));
  const before = await inSnapshot(storage, fingerprint);
  if (before === undefined) return false;
  const collected: Collected = new Map();
  const part = dayMs / partsPerDay;
  for (let index = 0; index < partsPerDay; index++) {
    const from = day * dayMs + index * part;
    const rows = await inSnapshot(storage, (trx) =>
      rawEventsIn(trx, projectKey, from, from + part)
        .where('counted', 'is not', null)
        .select(['path_id', 'visitor_id', 'counted', 'country', 'source_id'])
        .execute(),
    );
    for (const row of rows) {
      const classCode = Number(row.counted);
      const pathId = Number(row.path_id);
      const visitor = Number(row.visitor_id);
      collect(collected, valueProperties.country, valueKeyOf('country', row), classCode, pathId, visitor);
      collect(collected, valueProperties.source, valueKeyOf('source', row), classCode, pathId, visitor);
    }
    await yieldToEventLoop();
  }
  const after = await inSnapshot(storage, fingerprint);
  if (after !== before) return false;
  const sets: DaySet[] = [];
  const rows = [...collected.values()].map((group) => {
    const entries = new Map<number, PathEntry>();
    for (const [pathId, page] of group.pages) entries.set(pathId, { visitors: sortedDistinct(page.visitors), views: page.views });
    sets.push(daySetOf(entries));
    return {
      project_key: projectKey,
      property: group.property,
      value_key: group.valueKey,
      day,
      class: group.classCode,
      data: Buffer.from(encodeDaySet(entries)),
    };
  });
  const revision = await storage.db.transaction().execute(async (trx) => {
    await trx.deleteFrom('analytics_value_pages').where('project_key', '=', projectKey).where('day', '=', day).execute();
    for (let start = 0; start < rows.length; start += 200)
      await trx
        .insertInto('analytics_value_pages')
        .values(rows.slice(start, start + 200))
        .execute();
    await trx
      .insertInto('analytics_value_page_days')
      .values({ project_key: projectKey, day, fingerprint: before, revision: 1 })
      .onConflict((conflict) =>
        conflict.columns(['project_key', 'day']).doUpdateSet((eb) => ({ fingerprint: before, revision: eb('analytics_value_page_days.revision', '+', 1) })),
      )
      .execute();
    const stored = await trx
      .selectFrom('analytics_value_page_days')
      .select('revision')
      .where('project_key', '=', projectKey)
      .where('day', '=', day)
      .executeTakeFirstOrThrow();
    return Number(stored.revision);
  });
  // The first filtered query after a computation should not have to decode what was just encoded.
  rows.forEach((row, index) => state.caches.storeDay(valuePageCacheKey(projectKey, row.property, row.value_key, day, row.class), revision, sets[index]));
  return true;
}

/**
 * Computes the value pages of a project's days whose day sets or country and source records changed
 * since their pages were computed (or that have none), newest first, within the newest `spanDays` days
 * with data, until `stopped` says so. Run by the background loop after the indexes; returns the days computed.
 */
export async function refreshValuePages(
  state: Pick<QueryState, 'storage' | 'caches'>,
  projectKey: number,
  spanDays: number,
  stopped: () => boolean = () => false,
): Promise<number> {
  const { storage } = state;
  const stale = await inSnapshot(storage, async (trx) => {
    const { last } = await trx
      .selectFrom('analytics_day_sets')
      .select((eb) => eb.fn.max('day').as('last'))
      .where('project_key', '=', projectKey)
      .executeTakeFirstOrThrow();
    if (last === null) return [];
    const endDay = Number(last) + 1;
    const current = await dayFingerprints(trx, projectKey, endDay - spanDays, endDay);
    const computed = await trx
      .selectFrom('analytics_value_page_days')
      .select(['day', 'fingerprint'])
      .where('project_key', '=', projectKey)
      .where('day', '>=', endDay - spanDays)
      .execute();
    const stored = new Map(computed.map((row) => [Number(row.day), row.fingerprint]));
    return [...current]
      .filter(([day, print]) => stored.get(day) !== print)
      .map(([day]) => day)
      .sort((a, b) => b - a);
  });
  let built = 0;
  for (const day of stale) {
    if (stopped()) break;
    if (await buildDay(state, projectKey, day)) built++;
  }
  return built;
}
