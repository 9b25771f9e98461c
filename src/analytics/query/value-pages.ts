/**
 * Visitors or views per page filtered by one country or one visit source, from value pages: per whole
 * UTC day, class and value, each page's sorted visitors (value-pages-build.ts computes them from the raw
 * events in the background). A day's pages count only while that day's day sets and country and source
 * records keep the revisions they were computed from and none of its views is pending; any other day in
 * range, and the partial days at either end, are counted from the raw events that match the filter. So
 * the answer is exact whichever days the pages cover, and a visitor counts on a page exactly when one of
 * their views of that page has the value (a visitor's country or source may change between views).
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../storage/schema.ts';
import { pathNames } from '../ingest/dense-ids.ts';
import { BreakdownKind, countryKey, countryOfKey } from '../model/breakdown-batch.ts';
import { ClassCode } from '../model/class-codes.ts';
import { decodeDaySet } from '../model/day-set.ts';
import { dayMs, splitRange } from '../model/days.ts';
import type { CountedView } from '../model/pending-batch.ts';
import type { QueryState } from './caches.ts';
import { order, rank } from './exact-counts.ts';
import { dayRevisions, pendingViews, rawEventsIn } from './read-sources.ts';
import type { Counts, IndexedDay, Measure, Sources } from './types.ts';
import { topVisitors, type TopRows } from './top-pages.ts';
import type { DimensionIndex } from './dimension-index.ts';
import { servingValueIndex } from './value-index.ts';

/** The properties value pages split by, as stored in `analytics_value_pages.property`. */
export const valueProperties = { country: 0, source: 1 } as const;
export type ValueProperty = keyof typeof valueProperties;

/** The records whose revisions a day's fingerprint holds after its two day sets: country then source, human then AI. */
const fingerprintKinds: readonly BreakdownKind[] = [BreakdownKind.countryHuman, BreakdownKind.countryAi, BreakdownKind.sourceHuman, BreakdownKind.sourceAi];

/**
 * What each day of [firstDay, endDay) with data is now: the revisions of its day sets and of its country
 * and source records, `-` for a missing one. Any change to a day's counted views or to their countries or
 * sources rewrites one of them (a fold, a rebuild, a reclassification), so an equal fingerprint means the
 * pages computed under it still hold, unless views of that day are pending.
 */
export async function dayFingerprints(trx: Kysely<Database>, projectKey: number, firstDay: number, endDay: number): Promise<Map<number, string>> {
  const parts = new Map<number, string[]>();
  const put = (day: number, slot: number, revision: number) => {
    let list = parts.get(day);
    if (!list) parts.set(day, (list = ['-', '-', '-', '-', '-', '-']));
    list[slot] = String(revision);
  };
  for (const [key, revision] of await dayRevisions(trx, projectKey, firstDay, endDay)) {
    const [day, classCode] = key.split(':');
    put(Number(day), Number(classCode), revision);
  }
  const records = await trx
    .selectFrom('analytics_breakdown_days')
    .select(['day', 'kind', 'revision'])
    .where('project_key', '=', projectKey)
    .where('day', '>=', firstDay)
    .where('day', '<', endDay)
    .where('kind', 'in', fingerprintKinds)
    .execute();
  for (const row of records) put(Number(row.day), 2 + fingerprintKinds.indexOf(Number(row.kind) as BreakdownKind), Number(row.revision));
  return new Map([...parts].map(([day, list]) => [day, list.join(':')]));
}

/** Where processes keep a decoded value page: by project, property, value, day and class, checked against the day's revision. */
const valuePageCacheKey = (projectKey: number, property: number, valueKey: number, day: number, classCode: number) =>
  `${projectKey}:value:${property}:${valueKey}:${day}:${classCode}`;

/** The breakdown key of a raw event's value of `property` (as model/breakdown-batch.ts keys them). */
export function valueKeyOf(property: ValueProperty, row: { country: string | null; source_id: number | string | null }): number {
  return property === 'country' ? countryKey(row.country) : row.source_id === null ? 0 : Number(row.source_id);
}

/** Counted views of [from, to) whose `property` has the breakdown key `valueKey`, from the raw events. */
async function rawMatching(
  trx: Kysely<Database>,
  projectKey: number,
  from: number,
  to: number,
  property: ValueProperty,
  valueKey: number,
): Promise<CountedView[]> {
  let query = rawEventsIn(trx, projectKey, from, to).where('counted', 'is not', null);
  if (property === 'country') {
    const country = countryOfKey(valueKey);
    query = country === null ? query.where('country', 'is', null) : query.where('country', '=', country);
  } else query = valueKey === 0 ? query.where('source_id', 'is', null) : query.where('source_id', '=', valueKey);
  const rows = await query.select(['at', 'path_id', 'visitor_id', 'counted']).execute();
  return rows.map((row) => ({
    day: Math.floor(Number(row.at) / dayMs),
    pathId: Number(row.path_id),
    classCode: Number(row.counted) as ClassCode,
    visitor: Number(row.visitor_id),
  }));
}

/** The stored value pages of one value of a project (`code` as `valueProperties` stores the property). */
const pagesOfValue = (trx: Kysely<Database>, projectKey: number, code: number, valueKey: number) =>
  trx.selectFrom('analytics_value_pages').where('project_key', '=', projectKey).where('property', '=', code).where('value_key', '=', valueKey);

/**
 * The stored value pages of one value over [firstDay, endDay), still encoded, of the days `revisions` holds (at the
 * revision read beside them, in the same snapshot). Neither decoded nor put in the query cache: the value indexes
 * (value-index-build.ts) decode one value's at a time, build its index once, and leave the cache the sets queries read.
 */
export async function encodedValuePages(
  trx: Kysely<Database>,
  projectKey: number,
  code: number,
  valueKey: number,
  firstDay: number,
  endDay: number,
  revisions: Map<number, number>,
): Promise<{ day: number; classCode: ClassCode; revision: number; data: Uint8Array }[]> {
  const rows = await pagesOfValue(trx, projectKey, code, valueKey)
    .select(['day', 'class', 'data'])
    .where('day', '>=', firstDay)
    .where('day', '<', endDay)
    .execute();
  return rows.flatMap((row) => {
    const revision = revisions.get(Number(row.day));
    return revision === undefined ? [] : [{ day: Number(row.day), classCode: Number(row.class) as ClassCode, revision, data: row.data }];
  });
}

/** The value pages of `days` (day → revision of its pages), decoding only those not cached at that revision. */
export async function loadValuePages(
  trx: Kysely<Database>,
  state: Pick<QueryState, 'caches'>,
  projectKey: number,
  property: ValueProperty,
  valueKey: number,
  firstDay: number,
  endDay: number,
  days: Map<number, number>,
): Promise<IndexedDay[]> {
  const code = valueProperties[property];
  const stored = await pagesOfValue(trx, projectKey, code, valueKey).select(['day', 'class']).where('day', '>=', firstDay).where('day', '<', endDay).execute();
  const cacheKey = (day: number, classCode: number) => valuePageCacheKey(projectKey, code, valueKey, day, classCode);
  const loaded: IndexedDay[] = [];
  const missing = new Set<number>();
  for (const row of stored) {
    const day = Number(row.day);
    const revision = days.get(day);
    if (revision === undefined) continue;
    const set = state.caches.cachedDay(cacheKey(day, Number(row.class)), revision);
    if (set) loaded.push({ day, classCode: Number(row.class) as ClassCode, revision, set });
    else missing.add(day);
  }
  const wanted = [...missing];
  for (let start = 0; start < wanted.length; start += 100) {
    const rows = await pagesOfValue(trx, projectKey, code, valueKey)
      .select(['day', 'class', 'data'])
      .where('day', 'in', wanted.slice(start, start + 100))
      .execute();
    for (const row of rows) {
      const day = Number(row.day);
      const key = cacheKey(day, Number(row.class));
      const revision = days.get(day)!;
      if (state.caches.cachedDay(key, revision)) continue;
      const set = decodeDaySet(row.data);
      state.caches.storeDay(key, revision, set);
      loaded.push({ day, classCode: Number(row.class) as ClassCode, revision, set });
    }
  }
  return loaded;
}

/** The distinct path ids of `sources`, marked in an array by id (a project's path ids are dense) instead of a Set of every day's paths. */
function pathsOf(sources: Sources): number[] {
  let maxPathId = -1;
  for (const { set } of sources.days) if (set.paths.length > 0) maxPathId = Math.max(maxPathId, set.paths[set.paths.length - 1]);
  for (const view of sources.loose) maxPathId = Math.max(maxPathId, view.pathId);
  const seen = new Uint8Array(maxPathId + 1);
  const pathIds: number[] = [];
  const mark = (pathId: number) => {
    if (seen[pathId] === 0) {
      seen[pathId] = 1;
      pathIds.push(pathId);
    }
  };
  for (const { set } of sources.days) for (let index = 0; index < set.paths.length; index++) mark(set.paths[index]);
  for (const view of sources.loose) mark(view.pathId);
  return pathIds;
}

/** A ranking of pages under one value: ordered rows whose first `exact` are exact, of `count` rows in all (top-pages.ts). */
export interface ValueRanking extends TopRows {
  totals: Counts;
}

/** The human and AI records of each property, as the dimension index over them is built (dimension-days.ts). */
const kindsOf = {
  country: { human: BreakdownKind.countryHuman, ai: BreakdownKind.countryAi },
  source: { human: BreakdownKind.sourceHuman, ai: BreakdownKind.sourceAi },
} as const;

/**
 * Site-wide visitors of the value over whole days from the property's dimension index, when it holds
 * the range's records at their current revisions (the caller has checked nothing is pending); else null.
 */
async function indexedTotals(
  trx: Kysely<Database>,
  state: QueryState,
  projectKey: number,
  filter: { property: ValueProperty; valueKey: number },
  firstDay: number,
  endDay: number,
): Promise<Counts | null> {
  const dimension = state.caches.dimensionIndex<DimensionIndex>(`${projectKey}:${filter.property}`);
  if (dimension === undefined) return null;
  const { human, ai } = kindsOf[filter.property];
  const records = await trx
    .selectFrom('analytics_breakdown_days')
    .select(['day', 'kind', 'revision'])
    .where('project_key', '=', projectKey)
    .where('day', '>=', firstDay)
    .where('day', '<', endDay)
    .where('kind', 'in', [human, ai])
    .execute();
  const revisions = new Map(records.map((row) => [`${row.day}:${Number(row.kind) === human ? ClassCode.human : ClassCode.ai}`, Number(row.revision)]));
  if (!dimension.index.covers(firstDay, endDay, revisions)) return null;
  const slot = dimension.slotOf(human, filter.valueKey);
  // A key without a slot had no records when the index was built, nor has it now.
  return slot === dimension.values.length ? { human: 0, ai: 0, total: 0 } : dimension.index.pathTotals(slot, firstDay, endDay);
}

/**
 * The ranking of pages of [from, to) counting only views whose `property` has the breakdown key
 * `valueKey`, exact at least over its first `wanted` rows, cached per data version. Visitors over whole
 * days that the value's index covers (a busy value, value-index.ts) are its index's ranking; those that the
 * pages and the dimension index both cover count only the busiest pages (top-pages.ts), with site-wide
 * totals from the index; anything else ranks every page.
 */
export async function valueRanking(
  trx: Kysely<Database>,
  state: QueryState,
  projectKey: number,
  version: number,
  filter: { property: ValueProperty; valueKey: number },
  measure: Measure,
  range: { from: number; to: number; wanted: number },
): Promise<ValueRanking> {
  const { from, to, wanted } = range;
  const cacheKey = `${projectKey}:${measure}:${filter.property}=${filter.valueKey}:${from}:${to}`;
  const cached = state.caches.cachedRanking<ValueRanking>(cacheKey, version);
  if (cached && cached.exact >= Math.min(wanted, cached.count)) return cached;
  const { firstDay, endDay, partial } = splitRange(from, to);
  const days: IndexedDay[] = [];
  const loose: CountedView[] = [];
  if (endDay > firstDay) {
    const current = await dayFingerprints(trx, projectKey, firstDay, endDay);
    const computed = await trx
      .selectFrom('analytics_value_page_days')
      .select(['day', 'fingerprint', 'revision'])
      .where('project_key', '=', projectKey)
      .where('day', '>=', firstDay)
      .where('day', '<', endDay)
      .execute();
    const pending = new Set((await pendingViews(trx, projectKey, firstDay, endDay)).map((view) => view.day));
    const usable = new Map<number, number>();
    for (const row of computed) {
      const day = Number(row.day);
      if (!pending.has(day) && current.get(day) === row.fingerprint) usable.set(day, Number(row.revision));
    }
    const withData = new Set([...current.keys(), ...pending]);
    const valueIndex =
      measure === 'visitors' && partial.length === 0
        ? servingValueIndex(
            state,
            projectKey,
            { propertyCode: valueProperties[filter.property], valueKey: filter.valueKey },
            { firstDay, endDay, withData, usable },
          )
        : null;
    if (valueIndex !== null) {
      const ranked = valueIndex.rank(firstDay, endDay);
      const names = await pathNames(
        trx,
        state.ids,
        projectKey,
        ranked.rows.map((row) => row.pathId),
      );
      const rows = order(ranked, names).rows;
      const answer = { totals: ranked.totals, rows, exact: rows.length, count: rows.length };
      state.caches.storeRanking(cacheKey, version, answer);
      return answer;
    }
    days.push(...(await loadValuePages(trx, state, projectKey, filter.property, filter.valueKey, firstDay, endDay, usable)));
    // Days with data the pages do not cover (not computed yet, changed since, or with pending views): their raw events.
    const uncovered = [...withData].filter((day) => !usable.has(day));
    for (const day of uncovered) loose.push(...(await rawMatching(trx, projectKey, day * dayMs, (day + 1) * dayMs, filter.property, filter.valueKey)));
  }
  for (const [start, end] of partial) loose.push(...(await rawMatching(trx, projectKey, start, end, filter.property, filter.valueKey)));
  const sources = { days, loose };
  const pathIds = pathsOf(sources);
  const names = await pathNames(trx, state.ids, projectKey, pathIds);
  const totals =
    measure === 'visitors' && loose.length === 0 && endDay > firstDay ? await indexedTotals(trx, state, projectKey, filter, firstDay, endDay) : null;
  let answer: ValueRanking;
  if (totals !== null) answer = { totals, ...topVisitors(sources, wanted, names) };
  else {
    const ranked = order(rank(sources, measure), names);
    answer = { totals: ranked.totals, rows: ranked.rows, exact: ranked.rows.length, count: ranked.rows.length };
  }
  state.caches.storeRanking(cacheKey, version, answer);
  return answer;
}
