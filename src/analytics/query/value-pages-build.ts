import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { sql, type Kysely, type SelectQueryBuilder } from 'kysely';
import type { Storage } from '../../storage/dialect.ts';
import type { Database } from '../../storage/schema.ts';
import { inSnapshot } from '../../storage/snapshot.ts';
import { GrowingArray } from '../../lib/growing-array.ts';
import { encodeDecodedDaySet, type DaySet } from '../model/day-set.ts';
import type { QueryState } from './caches.ts';
import { dayMs, eventDay } from '../model/days.ts';
import { rawEventsIn } from './read-sources.ts';
import { dayFingerprints, valueKeyOf, valueProperties } from './value-pages.ts';

/**
 * Raw events are read a part of a day at a time, each part in its own short snapshot, yielding between parts:
 * on SQLite a snapshot holds the only connection and a read blocks the thread, so one read of a busy day would
 * stall ingestion and queries for as long (about 110,000 rows a day at the bench's full scale).
 *
 * On SQLite a part is a range of rowids of the day: the day index holds each row's rowid after its key, so a part
 * is one seek and reads only its own rows. Parts of an hour walked the whole day through that index 24 times, for
 * the time filter to keep one hour's rows: on a 5,000,000-view database the value pages after a load took 24–25 s of
 * CPU that way, 14–18 s by rowids. Elsewhere (PostgreSQL's `ctid` holds within one snapshot only) a part is an hour.
 */
const defaultRowidsPerPart = 2048;
const hoursPerDay = 24;

type ValueRow = { path_id: number; visitor_id: number; counted: number | null; country: string | null; source_id: number | null };

/** Calls `each` with the counted raw events of `day`, a part at a time (see above). */
async function readDay(storage: Storage, projectKey: number, day: number, rowidsPerPart: number, each: (row: ValueRow) => void): Promise<void> {
  const columns = ['path_id', 'visitor_id', 'counted', 'country', 'source_id'] as const;
  const read = async (part: (trx: Kysely<Database>) => SelectQueryBuilder<Database, 'analytics_events', object>) => {
    const rows = await inSnapshot(storage, (trx) => part(trx).where('counted', 'is not', null).select(columns).execute());
    for (const row of rows) each(row as ValueRow);
    await yieldToEventLoop();
  };
  if (storage.profile.rowId.column === 'rowid') {
    const dayRows = (trx: Kysely<Database>) => trx.selectFrom('analytics_events').where('project_key', '=', projectKey).where(eventDay, '=', day);
    const bounds = await inSnapshot(storage, async (trx) => ({
      first: await dayRows(trx)
        .select(sql<number>`rowid`.as('id'))
        .orderBy(sql`rowid`)
        .limit(1)
        .executeTakeFirst(),
      last: await dayRows(trx)
        .select(sql<number>`rowid`.as('id'))
        .orderBy(sql`rowid`, 'desc')
        .limit(1)
        .executeTakeFirst(),
    }));
    if (!bounds.first || !bounds.last) return;
    for (let from = Number(bounds.first.id); from <= Number(bounds.last.id); from += rowidsPerPart)
      await read((trx) =>
        dayRows(trx)
          .where(sql`rowid`, '>=', from)
          .where(sql`rowid`, '<', from + rowidsPerPart),
      );
    return;
  }
  const hour = dayMs / hoursPerDay;
  for (let index = 0; index < hoursPerDay; index++) {
    const from = day * dayMs + index * hour;
    await read((trx) => rawEventsIn(trx, projectKey, from, from + hour));
  }
}

/**
 * The entries of one day's raw events as read, for its value pages: per entry the group (property, value
 * and class) and the path and visitor, in typed arrays. The day's rows arrive over many yields to the event
 * loop; kept in JS arrays and maps they were promoted to the old generation, and every day's left the
 * serving thread's heap larger until a full collection (a fresh server's memory rose by hundreds of MiB
 * while it computed the pages after a load).
 */
export class DayEntries {
  readonly groups: { property: number; valueKey: number; classCode: number }[] = [];
  readonly #groupOf = new Map<number, number>();
  readonly #group = new GrowingArray((size) => new Uint32Array(size));
  readonly #path = new GrowingArray((size) => new Uint32Array(size));
  readonly #visitor = new GrowingArray((size) => new Uint32Array(size));
  #maxPath = 0;
  #maxVisitor = 0;

  add(property: number, valueKey: number, classCode: number, pathId: number, visitor: number): void {
    const key = (valueKey * 2 + property) * 2 + classCode;
    let group = this.#groupOf.get(key);
    if (group === undefined) {
      this.#groupOf.set(key, (group = this.groups.length));
      this.groups.push({ property, valueKey, classCode });
    }
    this.#group.push(group);
    this.#path.push(pathId);
    this.#visitor.push(visitor);
    if (pathId > this.#maxPath) this.#maxPath = pathId;
    if (visitor > this.#maxVisitor) this.#maxVisitor = visitor;
  }

  /** Each group's day set, in the order of `groups`. */
  daySets(): DaySet[] {
    const group = this.#group.array;
    const count = this.#group.length;
    const starts = new Uint32Array(this.groups.length + 1);
    for (let index = 0; index < count; index++) starts[group[index] + 1]++;
    for (let index = 0; index < this.groups.length; index++) starts[index + 1] += starts[index];
    // Each group's entries, in the order read: `order[starts[g]..starts[g + 1])` are group g's.
    const next = starts.slice(0, this.groups.length);
    const order = new Uint32Array(count);
    for (let index = 0; index < count; index++) order[next[group[index]]++] = index;
    const paths = this.#path.array;
    const visitors = this.#visitor.array;
    // A path and a visitor make one number when every such number is exact (ids are dense, so nearly always): a
    // typed array of numbers sorts without a comparator. Otherwise the entries are sorted by a comparator.
    const range = this.#maxVisitor + 1;
    const packed = (this.#maxPath + 1) * range <= Number.MAX_SAFE_INTEGER;
    return this.groups.map((_, index) => {
      const entries = order.subarray(starts[index], starts[index + 1]);
      const sortedPaths = new Uint32Array(entries.length);
      const sortedVisitors = new Uint32Array(entries.length);
      if (packed) {
        const keys = new Float64Array(entries.length);
        for (let at = 0; at < entries.length; at++) keys[at] = paths[entries[at]] * range + visitors[entries[at]];
        keys.sort();
        for (let at = 0; at < keys.length; at++) {
          sortedPaths[at] = Math.floor(keys[at] / range);
          sortedVisitors[at] = keys[at] - sortedPaths[at] * range;
        }
      } else {
        const sorted = Array.from(entries).sort((a, b) => paths[a] - paths[b] || visitors[a] - visitors[b]);
        sorted.forEach((entry, at) => {
          sortedPaths[at] = paths[entry];
          sortedVisitors[at] = visitors[entry];
        });
      }
      return daySetOfSorted(sortedPaths, sortedVisitors);
    });
  }
}

/** The day set of entries sorted by path, then visitor: a path's views are its entries, its visitors the distinct ones. */
function daySetOfSorted(entryPaths: Uint32Array, entryVisitors: Uint32Array): DaySet {
  const paths = new GrowingArray((size) => new Uint32Array(size), 64);
  const views = new GrowingArray((size) => new Uint32Array(size), 64);
  const starts = new GrowingArray((size) => new Uint32Array(size), 64);
  const visitors = new Uint32Array(entryPaths.length);
  let distinct = 0;
  starts.push(0);
  for (let index = 0; index < entryPaths.length; index++) {
    const pathId = entryPaths[index];
    const newPath = paths.length === 0 || paths.array[paths.length - 1] !== pathId;
    if (newPath) {
      if (paths.length > 0) starts.push(distinct);
      paths.push(pathId);
      views.push(0);
    }
    views.array[views.length - 1]++;
    if (newPath || entryVisitors[index] !== entryVisitors[index - 1]) visitors[distinct++] = entryVisitors[index];
  }
  starts.push(distinct);
  return { paths: paths.finish(), views: views.finish(), starts: starts.finish(), visitors: visitors.slice(0, distinct) };
}

/**
 * Computes one day's value pages from its raw events and stores them under the fingerprint the day had
 * before and after the reads; when the day changed meanwhile, nothing is stored (the next round retries).
 */
async function buildDay(storage: Storage, projectKey: number, day: number, rowidsPerPart: number): Promise<boolean> {
  const fingerprint = (trx: Kysely<Database>) => dayFingerprints(trx, projectKey, day, day + 1).then((prints) => prints.get(day));
  const before = await inSnapshot(storage, fingerprint);
  if (before === undefined) return false;
  const entries = new DayEntries();
  await readDay(storage, projectKey, day, rowidsPerPart, (row) => {
    const classCode = Number(row.counted);
    const pathId = Number(row.path_id);
    const visitor = Number(row.visitor_id);
    entries.add(valueProperties.country, valueKeyOf('country', row), classCode, pathId, visitor);
    entries.add(valueProperties.source, valueKeyOf('source', row), classCode, pathId, visitor);
  });
  const after = await inSnapshot(storage, fingerprint);
  if (after !== before) return false;
  const sets = entries.daySets();
  const rows = entries.groups.map((group, index) => ({
    project_key: projectKey,
    property: group.property,
    value_key: group.valueKey,
    day,
    class: group.classCode,
    data: Buffer.from(encodeDecodedDaySet(sets[index])),
  }));
  await storage.db.transaction().execute(async (trx) => {
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
  });
  // The decoded pages are not put in the query cache: a day's pages hold each view twice (by country and by source),
  // and storing them all after a load pushed the cache to its budget, the server's memory with it (peak 829–892 MiB
  // → 762–787 MiB at half scale), while the value indexes built next answer the busiest values without them.
  return true;
}

/**
 * Computes the value pages of a project's days whose day sets or country and source records changed
 * since their pages were computed (or that have none), newest first, within the newest `spanDays` days
 * with data, until `stopped` says so. Run by the background loop after the indexes; returns the days computed.
 * `rowidsPerPart`: how many rowids a read of a day covers on SQLite (see above).
 */
export async function refreshValuePages(
  state: Pick<QueryState, 'storage'>,
  projectKey: number,
  spanDays: number,
  stopped: () => boolean = () => false,
  rowidsPerPart = defaultRowidsPerPart,
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
    if (await buildDay(storage, projectKey, day, rowidsPerPart)) built++;
  }
  return built;
}
