import type { Kysely } from 'kysely';
import type { Storage } from '../../storage/dialect.ts';
import type { Database } from '../../storage/schema.ts';
import { inSnapshot } from '../../storage/snapshot.ts';
import { classificationVersion } from '../ingest/agents/load.ts';
import { dayMs, dayOf, splitRange } from '../model/days.ts';
import { ByteReader, ByteWriter } from '../model/varint.ts';

/**
 * Docs gaps' evidence of searches without hits and of 404s, kept per whole UTC day
 * (`analytics_gap_days`), so the gaps list reads one row per day and source instead of every failure
 * of the range. A day's row is computed from that day's raw rows by the write side (the docs gaps
 * loop; a read computes a missing or stale day in memory) and stands while the day's failure
 * count, kept by ingestion in the transaction that stores them, is the one it was computed with (raw
 * rows are only inserted; a purge drops the rows of its days): a day with new failures, or a row
 * written under other agent lists (which decide a 404's class), is computed again by the next refresh
 * (and by reads meanwhile, in memory). Partial days at the range's ends are read raw.
 */

/** What a day keeps per source. */
export const GapDaySource = { searches: 0, notFound: 1 } as const;
export type GapDaySource = (typeof GapDaySource)[keyof typeof GapDaySource];

/** One query's (searches) or path's (404s) failures: count, first and last time, and senders by class. */
export interface FailureEntry {
  unit: string;
  count: number;
  first: number;
  last: number;
  /** Dense visitor ids by the class they sent as (`other`: no known class), in parts (a part per day); ids may repeat across parts. */
  human: ArrayLike<number>[];
  ai: ArrayLike<number>[];
  other: ArrayLike<number>[];
}

/** A raw row as the readers of gap-evidence.ts give it: one unit, one sender (or none) and class. */
export interface FailureRow {
  unit: string;
  visitor: number | null;
  visitorClass: 'human' | 'ai' | null;
  count: number;
  first: number;
  last: number;
}

/** Reads the raw failure rows of one source over [from, to), grouped within UTC days (a row's day is its `first`'s). */
export type RawFailures = (db: Kysely<Database>, projectKey: number, from: number, to: number) => Promise<FailureRow[]>;

interface RowsEntry {
  unit: string;
  count: number;
  first: number;
  last: number;
  human: number[];
  ai: number[];
  other: number[];
}

/** Raw rows per unit. */
function perUnit(rows: Iterable<FailureRow>): Map<string, RowsEntry> {
  const entries = new Map<string, RowsEntry>();
  for (const row of rows) {
    let entry = entries.get(row.unit);
    if (!entry) entries.set(row.unit, (entry = { unit: row.unit, count: 0, first: row.first, last: row.last, human: [], ai: [], other: [] }));
    entry.count += row.count;
    if (row.first < entry.first) entry.first = row.first;
    if (row.last > entry.last) entry.last = row.last;
    if (row.visitor !== null) (row.visitorClass === 'human' ? entry.human : row.visitorClass === 'ai' ? entry.ai : entry.other).push(row.visitor);
  }
  return entries;
}

/** Adds one unit's figures and sender parts into the entries of the range. */
function add(entries: Map<string, FailureEntry>, unit: string, count: number, first: number, last: number, parts: ArrayLike<number>[]): void {
  let entry = entries.get(unit);
  if (!entry) entries.set(unit, (entry = { unit, count: 0, first, last, human: [], ai: [], other: [] }));
  entry.count += count;
  if (first < entry.first) entry.first = first;
  if (last > entry.last) entry.last = last;
  if (parts[0]!.length > 0) entry.human.push(parts[0]!);
  if (parts[1]!.length > 0) entry.ai.push(parts[1]!);
  if (parts[2]!.length > 0) entry.other.push(parts[2]!);
}

const sortedDistinct = (visitors: number[]) => [...new Set(visitors)].sort((a, b) => a - b);

/**
 * A day's entries as stored: the units as a JSON list of strings, and per unit, as unsigned varints,
 * its count, first and last time (milliseconds into the day) and its three sender lists (length, then
 * sorted ids as differences), which decode without parsing text.
 */
function encode(entries: Map<string, RowsEntry>, dayStart: number): { units: string; senders: Uint8Array } {
  const writer = new ByteWriter();
  const units: string[] = [];
  for (const entry of entries.values()) {
    units.push(entry.unit);
    writer.write(entry.count);
    writer.write(entry.first - dayStart);
    writer.write(entry.last - dayStart);
    for (const list of [entry.human, entry.ai, entry.other]) {
      const ids = sortedDistinct(list);
      writer.write(ids.length);
      let previous = 0;
      for (const id of ids) {
        writer.write(id - previous);
        previous = id;
      }
    }
  }
  return { units: JSON.stringify(units), senders: writer.finish() };
}

const none: number[] = [];

function decodeInto(entries: Map<string, FailureEntry>, units: string, senders: Uint8Array, dayStart: number): void {
  const reader = new ByteReader(senders);
  for (const unit of JSON.parse(units) as string[]) {
    const count = reader.read();
    const first = dayStart + reader.read();
    const last = dayStart + reader.read();
    const parts: number[][] = [];
    for (let list = 0; list < 3; list++) {
      const length = reader.read();
      const ids: number[] = length === 0 ? none : [];
      let id = 0;
      for (let index = 0; index < length; index++) ids.push((id += reader.read()));
      parts.push(ids);
    }
    add(entries, unit, count, first, last, parts);
  }
}

/**
 * The failures of one source per day over whole days [firstDay, endDay), as ingestion counts them in
 * the transaction that stores them: searches without hits in `analytics_search_totals`, 404s in
 * `analytics_not_found_days`, oldest first. Reading them costs a row per day, whatever the failures.
 */
async function failureCounts(trx: Kysely<Database>, source: GapDaySource, projectKey: number, firstDay: number, endDay: number) {
  const rows =
    source === GapDaySource.searches
      ? await trx
          .selectFrom('analytics_search_totals')
          .select(['day', 'no_hits as failures'])
          .where('project_key', '=', projectKey)
          .where('day', '>=', firstDay)
          .where('day', '<', endDay)
          .where('no_hits', '>', 0)
          .orderBy('day')
          .execute()
      : await trx
          .selectFrom('analytics_not_found_days')
          .select(['day', 'failures'])
          .where('project_key', '=', projectKey)
          .where('day', '>=', firstDay)
          .where('day', '<', endDay)
          .where('failures', '>', 0)
          .orderBy('day')
          .execute();
  return rows.map((row) => ({ day: Number(row.day), failures: Number(row.failures) }));
}

/**
 * The failures of one source over [from, to), per unit: whole days from their kept rows (those
 * missing or stale computed from the raw rows, in the same snapshot as the counts that check them),
 * partial days from the raw rows. A read (`read`) writes nothing; `keep`, the write side (the docs
 * gaps loop), stores the days it computed and decodes nothing, answering no entries.
 */
export async function failuresOver(
  storage: Storage,
  source: GapDaySource,
  projectKey: number,
  range: { from: number; to: number },
  raw: RawFailures,
  mode: 'read' | 'keep' = 'read',
): Promise<FailureEntry[]> {
  const { firstDay, endDay, partial } = splitRange(range.from, range.to);
  const classification = source === GapDaySource.notFound ? classificationVersion : '';
  const { entries, fresh } = await inSnapshot(storage, async (trx) => {
    const entries = new Map<string, FailureEntry>();
    const fresh: { day: number; failures: number; units: string; senders: Uint8Array }[] = [];
    for (const [start, end] of mode === 'read' ? partial : [])
      for (const entry of perUnit(await raw(trx, projectKey, start, end)).values())
        add(entries, entry.unit, entry.count, entry.first, entry.last, [entry.human, entry.ai, entry.other]);
    if (firstDay >= endDay) return { entries, fresh };
    const [days, kept] = await Promise.all([
      failureCounts(trx, source, projectKey, firstDay, endDay),
      trx
        .selectFrom('analytics_gap_days')
        .select(['day', 'failures', 'classification', 'units', 'senders'])
        .where('project_key', '=', projectKey)
        .where('source', '=', source)
        .where('day', '>=', firstDay)
        .where('day', '<', endDay)
        .execute(),
    ]);
    const keptByDay = new Map(kept.map((row) => [Number(row.day), row]));
    const stale: { day: number; failures: number }[] = [];
    for (const { day, failures } of days) {
      const row = keptByDay.get(day);
      if (!(row && Number(row.failures) === failures && row.classification === classification)) stale.push({ day, failures });
      else if (mode === 'read') decodeInto(entries, row.units, row.senders, day * dayMs);
    }
    if (stale.length === 0) return { entries, fresh };
    // The stale days' raw rows in one read (from the first to the last of them), split by day.
    const rowsByDay = new Map<number, FailureRow[]>();
    for (const row of await raw(trx, projectKey, stale[0]!.day * dayMs, (stale[stale.length - 1]!.day + 1) * dayMs)) {
      const day = dayOf(row.first);
      const list = rowsByDay.get(day);
      if (list) list.push(row);
      else rowsByDay.set(day, [row]);
    }
    for (const { day, failures } of stale) {
      const encoded = encode(perUnit(rowsByDay.get(day) ?? []), day * dayMs);
      fresh.push({ day, failures, ...encoded });
      if (mode === 'read') decodeInto(entries, encoded.units, encoded.senders, day * dayMs);
    }
    return { entries, fresh };
  });
  if (mode === 'read') return [...entries.values()];
  for (let start = 0; start < fresh.length; start += 100)
    await storage.db
      .insertInto('analytics_gap_days')
      .values(fresh.slice(start, start + 100).map((row) => ({ project_key: projectKey, source, classification, ...row })))
      .onConflict((conflict) =>
        conflict.columns(['project_key', 'day', 'source']).doUpdateSet((eb) => ({
          failures: eb.ref('excluded.failures'),
          classification: eb.ref('excluded.classification'),
          units: eb.ref('excluded.units'),
          senders: eb.ref('excluded.senders'),
        })),
      )
      .execute();
  return [];
}
