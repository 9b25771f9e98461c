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
 * (and by reads meanwhile, in memory). Partial days at the range's ends are read raw. Aligned blocks of
 * 8 and 32 days are kept beside the days, built from them and checked the same way (against the sum of
 * their days' counts), so a list over 90 days reads about a dozen rows, each query or path once per block.
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
 * The spans a day is kept in: the day itself, and the aligned blocks of 8 and 32 days holding it, so a
 * list over 90 days reads a dozen rows, in which a query or path asked on many days appears once. A
 * span's row is stored under the code `source + 2 × level`.
 */
const spanDays = [1, 8, 32] as const;
const codeOf = (source: GapDaySource, level: number) => source + 2 * level;

interface Span {
  level: number;
  day: number;
}

/** [firstDay, endDay) as the fewest spans: the largest aligned block that fits at each step. */
function spansOf(firstDay: number, endDay: number): Span[] {
  const spans: Span[] = [];
  for (let day = firstDay; day < endDay;) {
    let level = spanDays.length - 1;
    while (level > 0 && (day % spanDays[level]! !== 0 || day + spanDays[level]! > endDay)) level--;
    spans.push({ level, day });
    day += spanDays[level]!;
  }
  return spans;
}

/** Every aligned block of a level within [firstDay, endDay): what the write side keeps, so shifted ranges find theirs. */
function blocksWithin(level: number, firstDay: number, endDay: number): Span[] {
  const size = spanDays[level]!;
  const blocks: Span[] = [];
  for (let day = Math.ceil(firstDay / size) * size; day + size <= endDay; day += size) blocks.push({ level, day });
  return blocks;
}

/** One span's entries as raw-row entries (flat sender lists), for encoding into a block. */
function flattened(entries: Map<string, FailureEntry>): Map<string, RowsEntry> {
  const flat = new Map<string, RowsEntry>();
  const joined = (parts: ArrayLike<number>[]) => parts.flatMap((part) => Array.from(part));
  for (const [unit, entry] of entries)
    flat.set(unit, {
      unit,
      count: entry.count,
      first: entry.first,
      last: entry.last,
      human: joined(entry.human),
      ai: joined(entry.ai),
      other: joined(entry.other),
    });
  return flat;
}

/** The stored units and senders of some kept spans, by `code:day`. */
async function keptBodies(trx: Kysely<Database>, projectKey: number, source: GapDaySource, spans: readonly Span[]) {
  const bodies = new Map<string, { units: string; senders: Uint8Array }>();
  if (spans.length === 0) return bodies;
  const rows = await trx
    .selectFrom('analytics_gap_days')
    .select(['source', 'day', 'units', 'senders'])
    .where('project_key', '=', projectKey)
    .where((eb) =>
      eb.or(
        spanDays.map((_, level) =>
          eb.and([eb('source', '=', codeOf(source, level)), eb('day', 'in', [-1, ...spans.filter((span) => span.level === level).map((span) => span.day)])]),
        ),
      ),
    )
    .execute();
  for (const row of rows) bodies.set(`${Number(row.source)}:${Number(row.day)}`, row);
  return bodies;
}

/**
 * The failures of one source over [from, to), per unit: whole days from their kept spans (a block of 8
 * or 32 days where one fits and is fresh, else its smaller blocks or days; days missing or stale computed
 * from the raw rows, in the same snapshot as the counts that check them), partial days from the raw rows.
 * A span is fresh while the failures it was computed with equal the sum of its days' counts (and, for
 * 404s, its agent lists are the current ones). A read (`read`) writes nothing and fetches only the spans
 * it decodes; `keep`, the write side (the docs gaps loop), stores the stale days, then every stale block
 * within the range built from its days, and decodes nothing else, answering no entries.
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
    const fresh: { level: number; day: number; failures: number; units: string; senders: Uint8Array }[] = [];
    for (const [start, end] of mode === 'read' ? partial : [])
      for (const entry of perUnit(await raw(trx, projectKey, start, end)).values())
        add(entries, entry.unit, entry.count, entry.first, entry.last, [entry.human, entry.ai, entry.other]);
    if (firstDay >= endDay) return { entries, fresh };
    const [days, kept] = await Promise.all([
      failureCounts(trx, source, projectKey, firstDay, endDay),
      trx
        .selectFrom('analytics_gap_days')
        .select(['source', 'day', 'failures', 'classification'])
        .where('project_key', '=', projectKey)
        .where(
          'source',
          'in',
          spanDays.map((_, level) => codeOf(source, level)),
        )
        .where('day', '>=', firstDay)
        .where('day', '<', endDay)
        .execute(),
    ]);
    const failuresOf = new Map(days.map(({ day, failures }) => [day, failures]));
    const keptMarks = new Map(kept.map((row) => [`${Number(row.source)}:${Number(row.day)}`, row]));
    const key = (span: Span) => `${codeOf(source, span.level)}:${span.day}`;
    const spanFailures = ({ level, day }: Span) => {
      let sum = 0;
      for (let one = day; one < day + spanDays[level]!; one++) sum += failuresOf.get(one) ?? 0;
      return sum;
    };
    const isFresh = (span: Span, failures: number) => {
      const row = keptMarks.get(key(span));
      return row !== undefined && Number(row.failures) === failures && row.classification === classification;
    };
    // Each span from its fresh row, else a block from its smaller spans; days not fresh are computed from the raw rows.
    const use: Span[] = [];
    const stale: { day: number; failures: number }[] = [];
    const visit = (span: Span) => {
      const failures = spanFailures(span);
      if (failures === 0) return;
      if (isFresh(span, failures)) use.push(span);
      else if (span.level === 0) stale.push({ day: span.day, failures });
      else for (const inner of blocksWithin(span.level - 1, span.day, span.day + spanDays[span.level]!)) visit(inner);
    };
    for (const span of mode === 'read' ? spansOf(firstDay, endDay) : blocksWithin(0, firstDay, endDay)) visit(span);
    const computed = new Map<number, { units: string; senders: Uint8Array }>();
    if (stale.length > 0) {
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
        computed.set(day, encoded);
        fresh.push({ level: 0, day, failures, ...encoded });
      }
    }
    if (mode === 'read') {
      const bodies = await keptBodies(trx, projectKey, source, use);
      for (const span of use) {
        const body = bodies.get(key(span));
        if (body) decodeInto(entries, body.units, body.senders, span.day * dayMs);
      }
      for (const [day, body] of computed) decodeInto(entries, body.units, body.senders, day * dayMs);
      return { entries, fresh };
    }
    // Keep: every stale block within the range, built from its days (kept, or computed above).
    const blocks = spanDays
      .flatMap((_, level) => (level === 0 ? [] : blocksWithin(level, firstDay, endDay)))
      .filter((block) => {
        const failures = spanFailures(block);
        return failures > 0 && !isFresh(block, failures);
      });
    const needed = new Set(blocks.flatMap((block) => blocksWithin(0, block.day, block.day + spanDays[block.level]!).map((span) => span.day)));
    const bodies = await keptBodies(
      trx,
      projectKey,
      source,
      use.filter((span) => needed.has(span.day)),
    );
    for (const block of blocks) {
      const merged = new Map<string, FailureEntry>();
      for (let day = block.day; day < block.day + spanDays[block.level]!; day++) {
        const body = computed.get(day) ?? bodies.get(key({ level: 0, day }));
        if (body) decodeInto(merged, body.units, body.senders, day * dayMs);
      }
      fresh.push({ level: block.level, day: block.day, failures: spanFailures(block), ...encode(flattened(merged), block.day * dayMs) });
    }
    return { entries, fresh };
  });
  if (mode === 'read') return [...entries.values()];
  for (let start = 0; start < fresh.length; start += 100)
    await storage.db
      .insertInto('analytics_gap_days')
      .values(
        fresh.slice(start, start + 100).map(({ level, day, failures, units, senders }) => ({
          project_key: projectKey,
          source: codeOf(source, level),
          day,
          failures,
          classification,
          units,
          senders,
        })),
      )
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
