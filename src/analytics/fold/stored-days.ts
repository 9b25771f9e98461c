import { sql, type Kysely } from 'kysely';
import type { DialectProfile } from '../../storage/dialect.ts';
import type { Database } from '../../storage/schema.ts';
import { daySetEntries, decodeDaySet, encodeDaySet, sortedDistinct, unionSorted, type PathEntry } from '../model/day-set.ts';

/**
 * The two tables that keep a project's days as encoded sets (model/day-set.ts), one row per UTC day and
 * part: day sets by counted class, breakdown days by breakdown kind. Folds, repairs and rebuilds read and
 * write both the same way, so the queries are written once here.
 */
export type DayTable = 'analytics_day_sets' | 'analytics_breakdown_days';
const partColumn = { analytics_day_sets: 'class', analytics_breakdown_days: 'kind' } as const;

/** Both tables as one shape, their part column being `class` or `kind` (`partColumn`). */
type DayRows = Record<DayTable, { project_key: number; day: number; revision: number; data: Uint8Array; class?: number; kind?: number }>;

/** A day and part (class or kind) of one of the tables. */
export interface DayKey {
  day: number;
  part: number;
}

/** A row as read: its revision (moved on by every write; 0 for a row not written yet, or none) and, when asked for, its entries. */
export interface StoredDay {
  revision: number;
  entries: Map<number, PathEntry>;
}

/** A row to write: its new encoding, and the revision of the row it was computed from. */
export interface DayUpdate {
  key: DayKey;
  revision: number;
  data: Uint8Array;
}

export const dayKey = (day: number, part: number): string => `${day}:${part}`;

/**
 * Reads the rows of `keys` in `table`, keyed `dayKey(day, part)`: their revisions, and their entries
 * decoded with `entries` (otherwise empty). A key without a row is absent from the answer. With
 * `lock`, missing rows are created empty first, so two writers cannot both insert and overwrite each
 * other, and the rows are locked: PostgreSQL row locks in key order, against deadlocks; SQLite's
 * write lock serializes writers already.
 */
export async function readDays(
  trx: Kysely<Database>,
  profile: DialectProfile,
  table: DayTable,
  projectKey: number,
  keys: DayKey[],
  { lock, entries }: { lock: boolean; entries: boolean },
): Promise<Map<string, StoredDay>> {
  const db = trx as unknown as Kysely<DayRows>;
  const column = partColumn[table];
  const sorted = [...keys].sort((a, b) => a.day - b.day || a.part - b.part);
  const empty = Buffer.alloc(0);
  const wanted = new Set(keys.map((key) => dayKey(key.day, key.part)));
  const result = new Map<string, StoredDay>();
  for (let start = 0; start < sorted.length; start += 200) {
    const part = sorted.slice(start, start + 200);
    if (lock)
      await db
        .insertInto(table)
        .values(part.map((key) => ({ project_key: projectKey, day: key.day, [column]: key.part, revision: 0, data: empty })))
        .onConflict((conflict) => conflict.doNothing())
        .execute();
    const rows = await db
      .selectFrom(table)
      .select(['day', column, 'revision'])
      .$if(entries, (query) => query.select('data'))
      .where('project_key', '=', projectKey)
      .where('day', 'in', [...new Set(part.map((key) => key.day))])
      .orderBy('day')
      .orderBy(column)
      .$if(lock && profile.rowLocks, (query) => query.forUpdate())
      .execute();
    for (const row of rows) {
      const id = dayKey(row.day, row[column]!);
      if (!wanted.has(id)) continue;
      const decoded = entries ? daySetEntries(decodeDaySet((row as { data: Uint8Array }).data)) : new Map<number, PathEntry>();
      result.set(id, { revision: Number(row.revision), entries: decoded });
    }
  }
  return result;
}

/** Writes a row's new encoding and moves its revision on (the row exists: `readDays` with `lock` made it). */
export async function writeDay(trx: Kysely<Database>, table: DayTable, projectKey: number, key: DayKey, data: Uint8Array): Promise<void> {
  const db = trx as unknown as Kysely<DayRows>;
  await db
    .updateTable(table)
    .set({ data: Buffer.from(data), revision: sql`revision + 1` })
    .where('project_key', '=', projectKey)
    .where('day', '=', key.day)
    .where(partColumn[table], '=', key.part)
    .execute();
}

/**
 * A day's update: `added` (per key, its visitors as they came and its views) unioned into the row as read
 * (`stored`; none when it has no row yet), or replacing it (`replace`, a rebuild), encoded.
 */
export function mergeDay(key: DayKey, stored: StoredDay | undefined, added: Map<number, { visitors: number[]; views: number }>, replace = false): DayUpdate {
  const entries = replace ? new Map<number, PathEntry>() : (stored?.entries ?? new Map<number, PathEntry>());
  for (const [id, { visitors: arrived, views }] of added) {
    const existing = entries.get(id);
    const visitors = sortedDistinct(arrived);
    entries.set(id, existing ? { visitors: unionSorted(existing.visitors, visitors), views: existing.views + views } : { visitors, views });
  }
  return { key, revision: stored?.revision ?? 0, data: encodeDaySet(entries) };
}
