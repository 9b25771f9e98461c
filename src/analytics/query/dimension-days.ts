/**
 * The dimension breakdowns and visitors or views filtered by one country or source, from the breakdown
 * days' dimension kinds (model/breakdown-batch.ts) instead of the raw events: per value, the union of
 * its visitor sets over the days of the range, split human / AI / all as the agent and referrer
 * breakdowns are (breakdown-counts.ts). Partial days and pending entries are read as those are
 * (breakdown-sources.ts), so answers are exact. A project whose past days predate these kinds
 * (`analytics_projects.dimension_days` = 0, until `quire analytics rebuild`) is answered from the raw
 * events (dimensions.ts).
 */
import type { Kysely } from 'kysely';
import { sortByCodePoint } from '../../lib/code-point-order.ts';
import type { Database } from '../../storage/schema.ts';
import { pathNames } from '../ingest/dense-ids.ts';
import { unknownValue } from '../ingest/dimensions/user-agents.ts';
import { referrerHosts } from '../ingest/referrers.ts';
import { BreakdownKind, countryKey, countryOfKey } from '../model/breakdown-batch.ts';
import { countGroups } from './breakdown-counts.ts';
import { readBreakdownSources, type BreakdownSources } from './breakdown-sources.ts';
import { buildDimensionIndex, indexSpan, servedDays, slotViews, type DimensionIndex } from './dimension-index.ts';
import { ClassCode, classCodes, CountClass } from '../model/class-codes.ts';
import type { QueryState } from './caches.ts';
import type { Counts, Measure } from './types.ts';

type Property = 'country' | 'browser' | 'os' | 'device' | 'source' | 'entry_page';
type ViewClass = 'human' | 'ai' | 'all';

/** The human and AI kinds of each property (browser, OS and device group user agents by their traits). */
const kindsOf: Record<Property, { human: BreakdownKind; ai: BreakdownKind }> = {
  country: { human: BreakdownKind.countryHuman, ai: BreakdownKind.countryAi },
  browser: { human: BreakdownKind.humanAgent, ai: BreakdownKind.agentView },
  os: { human: BreakdownKind.humanAgent, ai: BreakdownKind.agentView },
  device: { human: BreakdownKind.humanAgent, ai: BreakdownKind.agentView },
  source: { human: BreakdownKind.sourceHuman, ai: BreakdownKind.sourceAi },
  entry_page: { human: BreakdownKind.entryHuman, ai: BreakdownKind.entryAi },
};

const kindsFor = (property: Property, viewClass: ViewClass): BreakdownKind[] =>
  viewClass === 'human' ? [kindsOf[property].human] : viewClass === 'ai' ? [kindsOf[property].ai] : [kindsOf[property].human, kindsOf[property].ai];

/** Whether the project's breakdown days hold the dimension kinds for all its days. */
export async function dimensionDaysComplete(trx: Kysely<Database>, projectKey: number): Promise<{ complete: boolean; version: number }> {
  const row = await trx.selectFrom('analytics_projects').select(['dimension_days', 'version']).where('project_key', '=', projectKey).executeTakeFirstOrThrow();
  return { complete: Number(row.dimension_days) === 1, version: Number(row.version) };
}

/** Keys (agent, country, source or path ids) of the sources. */
function keysOf(sources: BreakdownSources): Set<number> {
  const keys = new Set<number>();
  for (const { set } of sources.days) for (const key of set.paths) keys.add(key);
  for (const entry of sources.loose) keys.add(entry.key);
  return keys;
}

/** Each key's value (null: in the totals, in no row). */
async function valuesOf(trx: Kysely<Database>, state: QueryState, projectKey: number, property: Property, keys: Set<number>): Promise<Map<string, number[]>> {
  const byValue = new Map<string, number[]>();
  const put = (value: string | null, key: number) => {
    if (value === null) return;
    let list = byValue.get(value);
    if (!list) byValue.set(value, (list = []));
    list.push(key);
  };
  if (property === 'country') for (const key of keys) put(countryOfKey(key), key);
  else if (property === 'source') {
    const hosts = await referrerHosts(
      trx,
      state.ids,
      [...keys].filter((key) => key !== 0),
    );
    for (const key of keys) put(key === 0 ? directSourceValue : (hosts.get(key) ?? null), key);
  } else if (property === 'entry_page') {
    const paths = await pathNames(trx, state.ids, projectKey, keys);
    for (const key of keys) put(paths.get(key) ?? null, key);
  } else {
    const traits = new Map<number, { browser: string | null; os: string | null; device: string | null }>();
    const ids = [...keys];
    for (let start = 0; start < ids.length; start += 500) {
      const rows = await trx
        .selectFrom('analytics_agent_traits')
        .select(['agent_id', 'browser', 'os', 'device'])
        .where('agent_id', 'in', ids.slice(start, start + 500))
        .execute();
      for (const row of rows) traits.set(Number(row.agent_id), row);
    }
    for (const key of keys) {
      const trait = traits.get(key);
      put(property === 'browser' ? (trait?.browser ?? unknownValue) : property === 'os' ? (trait?.os ?? unknownValue) : (trait?.device ?? 'desktop'), key);
    }
  }
  return byValue;
}

/** What dimensions.ts calls a visit without another site as its source (kept here to avoid an import cycle). */
export const directSourceValue = 'Direct / None';

export interface DayBreakdown {
  totals: { visitors: number; views: number };
  rows: { value: string; visitors: number; views: number }[];
}

/** `rows` by visitors descending, then value by code point, as the raw-event query orders its values on both databases (dimensions.ts). */
function byVisitors(rows: DayBreakdown['rows']): DayBreakdown['rows'] {
  return sortByCodePoint(
    rows,
    (a, b) => b.visitors - a.visitors,
    (row) => row.value,
  );
}

/** A whole dimension breakdown of [from, to) from the breakdown days, cached per data version. */
export async function dayBreakdown(
  trx: Kysely<Database>,
  state: QueryState,
  projectKey: number,
  version: number,
  property: Property,
  viewClass: ViewClass,
  from: number,
  to: number,
): Promise<DayBreakdown> {
  const cacheKey = `${projectKey}:dimension:${property}:${viewClass}:${from}:${to}`;
  const cached = state.caches.cachedRanking<DayBreakdown>(cacheKey, version);
  if (cached) return cached;
  const indexed = await indexedBreakdown(trx, state, projectKey, property, viewClass, from, to);
  if (indexed) {
    state.caches.storeRanking(cacheKey, version, indexed);
    return indexed;
  }
  const kinds = kindsFor(property, viewClass);
  const sources = await readBreakdownSources(trx, state.caches, state.ids, projectKey, from, to, kinds);
  const byValue = await valuesOf(trx, state, projectKey, property, keysOf(sources));
  const values = [...byValue.keys()];
  // Device: AI views are bots whatever their user agent says.
  const bot = property === 'device' ? values.length : -1;
  const groupOfKey = new Map<number, number>();
  values.forEach((value, group) => {
    for (const key of byValue.get(value)!) groupOfKey.set(key, group);
  });
  // Keys with no value (no country) count in the totals only: they get one group, dropped from the rows.
  const none = values.length + (bot >= 0 ? 1 : 0);
  const counted = countGroups(sources, none + 1, (kind, key) => (kind === BreakdownKind.agentView && bot >= 0 ? bot : (groupOfKey.get(key) ?? none)));
  const rows = values.map((value, group) => ({ value, visitors: counted.groups[group].visitors, views: sumViews(counted.groups[group].views) }));
  if (bot >= 0) {
    const existing = rows.find((row) => row.value === 'bot');
    const group = counted.groups[bot];
    // A human user agent whose device is "bot" (a parsed crawler) shares the row: merge by counting both groups' lists together.
    if (existing) {
      const merged = countGroups(sources, 1, (kind, key) => (kind === BreakdownKind.agentView || groupOfKey.get(key) === values.indexOf('bot') ? 0 : -1));
      existing.visitors = merged.groups[0].visitors;
      existing.views = sumViews(merged.groups[0].views);
    } else rows.push({ value: 'bot', visitors: group.visitors, views: sumViews(group.views) });
  }
  const result = { totals: counted.totals, rows: byVisitors(rows.filter((row) => row.views > 0)) };
  state.caches.storeRanking(cacheKey, version, result);
  return result;
}

/**
 * A whole dimension breakdown of [from, to) from the property's dimension index (dimension-index.ts), when
 * the index serves the range (`servedDays`). Visitors of the asked class and views both come from the index.
 * Null otherwise.
 */
async function indexedBreakdown(
  trx: Kysely<Database>,
  state: QueryState,
  projectKey: number,
  property: Property,
  viewClass: ViewClass,
  from: number,
  to: number,
): Promise<DayBreakdown | null> {
  const dimension = state.caches.dimensionIndex<DimensionIndex>(`${projectKey}:${property}`);
  const { human, ai } = kindsOf[property];
  const served = dimension && (await servedDays(trx, dimension, projectKey, [human, ai], from, to));
  if (!served) return null;
  const { firstDay, endDay } = served;
  const classes: readonly ClassCode[] = viewClass === 'human' ? [ClassCode.human] : viewClass === 'ai' ? [ClassCode.ai] : classCodes;
  const views = (slot: number) => {
    let sum = 0;
    for (const classCode of classes) sum += slotViews(dimension, classCode, slot, firstDay, endDay);
    return sum;
  };
  let totalViews = 0;
  for (let slot = 0; slot <= dimension.values.length; slot++) totalViews += views(slot);
  const ranked = dimension.index.rankClass(firstDay, endDay, viewClass === 'all' ? CountClass.either : CountClass[viewClass]);
  const rows: DayBreakdown['rows'] = [];
  for (const { pathId: slot, visitors } of ranked.rows) {
    if (slot >= dimension.values.length) continue;
    const slotViewCount = views(slot);
    if (slotViewCount > 0) rows.push({ value: dimension.values[slot], visitors, views: slotViewCount });
  }
  return { totals: { visitors: ranked.site, views: totalViews }, rows: byVisitors(rows) };
}

/**
 * Each key's slot in a dimension index of `values`: its value's place, `values.length` for a key without
 * one. Device: every AI view is a bot, whatever its user agent says.
 */
function dimensionSlots(property: Property, values: string[], byValue: Map<string, number[]>): (kind: BreakdownKind, key: number) => number {
  const slotOfKey = new Map<number, number>();
  values.forEach((value, slot) => {
    for (const key of byValue.get(value) ?? []) slotOfKey.set(key, slot);
  });
  const bot = values.indexOf('bot');
  return (kind, key) => (property === 'device' && kind === BreakdownKind.agentView ? bot : (slotOfKey.get(key) ?? values.length));
}

/**
 * Rebuilds a project's dimension indexes from the breakdown days of the newest `spanDays` days with
 * data, one property at a time, each read in one snapshot (run by the background loop after the range index).
 */
export async function refreshDimensionIndexes(state: QueryState, projectKey: number, spanDays: number): Promise<void> {
  for (const property of Object.keys(kindsOf) as Property[]) {
    const { human, ai } = kindsOf[property];
    const source = await indexSpan(state, projectKey, [human, ai], spanDays, (trx, days) =>
      valuesOf(trx, state, projectKey, property, keysOf({ days, loose: [] })),
    );
    if (source === null) continue;
    const values = [...source.values.keys()];
    if (property === 'device' && !values.includes('bot')) values.push('bot');
    const slotOf = dimensionSlots(property, values, source.values);
    const index = await buildDimensionIndex(source.days, human, values, slotOf, source.spanStart, source.span);
    state.caches.storeDimensionIndex(`${projectKey}:${property}`, index);
  }
}

function sumViews(views: Map<BreakdownKind, number>): number {
  let sum = 0;
  for (const count of views.values()) sum += count;
  return sum;
}

/** The key of a single country or source filter value, or undefined when the value names nothing (no view matches). */
export async function filterKey(trx: Kysely<Database>, property: 'country' | 'source', value: string): Promise<number | undefined> {
  if (property === 'country') return /^[A-Z]{2}$/.test(value) ? countryKey(value) : undefined;
  if (value === directSourceValue) return 0;
  const row = await trx.selectFrom('analytics_referrers').select('referrer_id').where('host', '=', value).executeTakeFirst();
  return row === undefined ? undefined : Number(row.referrer_id);
}

/**
 * Site-wide visitors or views of [from, to) filtered by one country or source, in total and per UTC day
 * (`series`), from that value's records.
 */
export async function dayFilteredCounts(
  trx: Kysely<Database>,
  state: QueryState,
  projectKey: number,
  filter: { property: 'country' | 'source'; value: string },
  measure: Measure,
  from: number,
  to: number,
  series: boolean,
): Promise<{ totals: Counts; days: Map<number, Counts> }> {
  const days = new Map<number, Counts>();
  const key = await filterKey(trx, filter.property, filter.value);
  if (key === undefined) return { totals: { human: 0, ai: 0, total: 0 }, days };
  const { human, ai } = kindsOf[filter.property];
  const sources = await readBreakdownSources(trx, state.caches, state.ids, projectKey, from, to, [human, ai]);
  const only = (part: BreakdownSources): Counts => {
    const counted = countGroups(part, 2, (kind, entryKey) => (entryKey !== key ? -1 : kind === human ? 0 : 1));
    if (measure === 'views') {
      const humanViews = counted.groups[0].views.get(human) ?? 0;
      const aiViews = counted.groups[1].views.get(ai) ?? 0;
      return { human: humanViews, ai: aiViews, total: humanViews + aiViews };
    }
    return { human: counted.groups[0].visitors, ai: counted.groups[1].visitors, total: counted.totals.visitors };
  };
  const totals = only(sources);
  if (series) {
    const perDay = new Map<number, BreakdownSources>();
    const partOf = (day: number) => {
      let part = perDay.get(day);
      if (!part) perDay.set(day, (part = { days: [], loose: [] }));
      return part;
    };
    for (const day of sources.days) partOf(day.day).days.push(day);
    for (const entry of sources.loose) if (entry.key === key) partOf(entry.day).loose.push(entry);
    for (const [day, part] of perDay) days.set(day, only(part));
  }
  return { totals, days };
}
