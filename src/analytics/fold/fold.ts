import { sql, type Kysely } from 'kysely';
import type { DialectProfile, Storage } from '../../storage/dialect.ts';
import type { Database } from '../../storage/schema.ts';
import { existingProjectKey } from '../ingest/dense-ids.ts';
import type { IngestState } from '../ingest/ingest.ts';
import { classCodes, type ClassCode } from '../model/class-codes.ts';
import { daySetEntries, decodeDaySet, encodeDaySet, sortedDistinct, unionSorted, type PathEntry } from '../model/day-set.ts';
import { readBreakdownBatch } from '../model/breakdown-batch.ts';
import { readPendingBatch, type CountedView } from '../model/pending-batch.ts';
import { BreakdownGroups, storeBreakdowns } from './breakdown-days.ts';

/** Pending batches folded per transaction: bounds how long day-set rows stay locked. */
const batchesPerFold = 200;

interface Group {
  day: number;
  classCode: ClassCode;
  paths: Map<number, { visitors: number[]; views: number }>;
}

/** Collects counted views into per day-and-class, per path entries (numeric keys: this runs per view). */
export class ViewGroups {
  readonly #groups = new Map<number, Group>();
  #last: Group | undefined;

  add(day: number, pathId: number, classCode: ClassCode, visitor: number): void {
    let group = this.#last;
    if (group === undefined || group.day !== day || group.classCode !== classCode) {
      const key = day * classCodes.length + classCode;
      group = this.#groups.get(key);
      if (!group) this.#groups.set(key, (group = { day, classCode, paths: new Map() }));
      this.#last = group;
    }
    let path = group.paths.get(pathId);
    if (!path) group.paths.set(pathId, (path = { visitors: [], views: 0 }));
    path.visitors.push(visitor);
    path.views++;
  }

  /** The groups keyed `day:class`. */
  result(): Map<string, Group> {
    return new Map([...this.#groups.values()].map((group) => [`${group.day}:${group.classCode}`, group]));
  }
}

export function groupViews(views: Iterable<CountedView>): Map<string, Group> {
  const groups = new ViewGroups();
  for (const view of views) groups.add(view.day, view.pathId, view.classCode, view.visitor);
  return groups.result();
}

/**
 * Locks the day-set rows of `days` (creating empty ones first, so two writers cannot both insert
 * and overwrite each other) and returns their current entries. PostgreSQL row locks, in key order
 * to avoid deadlocks; SQLite's write lock already serializes writers.
 */
export async function lockDaySets(
  trx: Kysely<Database>,
  profile: DialectProfile,
  projectKey: number,
  keys: { day: number; classCode: ClassCode }[],
): Promise<Map<string, Map<number, PathEntry>>> {
  const sorted = [...keys].sort((a, b) => a.day - b.day || a.classCode - b.classCode);
  const empty = Buffer.alloc(0);
  for (let start = 0; start < sorted.length; start += 200) {
    const part = sorted.slice(start, start + 200);
    await trx
      .insertInto('analytics_day_sets')
      .values(part.map(({ day, classCode }) => ({ project_key: projectKey, day, class: classCode, revision: 0, data: empty })))
      .onConflict((conflict) => conflict.doNothing())
      .execute();
  }
  const result = new Map<string, Map<number, PathEntry>>();
  const days = [...new Set(sorted.map((key) => key.day))];
  for (let start = 0; start < days.length; start += 200) {
    const rows = await trx
      .selectFrom('analytics_day_sets')
      .select(['day', 'class', 'data'])
      .where('project_key', '=', projectKey)
      .where('day', 'in', days.slice(start, start + 200))
      .orderBy('day')
      .orderBy('class')
      .$if(profile.rowLocks, (query) => query.forUpdate())
      .execute();
    for (const row of rows) result.set(`${row.day}:${row.class}`, daySetEntries(decodeDaySet(row.data)));
  }
  return result;
}

export async function writeDaySet(
  trx: Kysely<Database>,
  projectKey: number,
  day: number,
  classCode: ClassCode,
  entries: Map<number, PathEntry>,
): Promise<void> {
  await trx
    .updateTable('analytics_day_sets')
    .set({ data: Buffer.from(encodeDaySet(entries)), revision: sql`revision + 1` })
    .where('project_key', '=', projectKey)
    .where('day', '=', day)
    .where('class', '=', classCode)
    .execute();
}

/**
 * Folds committed pending batches of a project into its day sets. Each transaction takes some
 * batches (PostgreSQL: `SKIP LOCKED`, so several folders share the work), unions them into the day
 * sets and deletes them; a query reads day sets and pending batches in one snapshot, so each view
 * is in exactly one of them. Returns the number of batches folded.
 */
export async function foldPending(storage: Storage, projectKey: number): Promise<number> {
  const { db, profile } = storage;
  let folded = 0;
  for (;;) {
    const count = await db.transaction().execute(async (trx) => {
      const batches = await trx
        .selectFrom('analytics_pending')
        .select(['id', 'tuples', 'breakdowns'])
        .where('project_key', '=', projectKey)
        .orderBy('id')
        .limit(batchesPerFold)
        .$if(profile.rowLocks, (query) => query.forUpdate())
        .$if(profile.skipLocked, (query) => query.skipLocked())
        .execute();
      if (batches.length === 0) return 0;
      const grouping = new ViewGroups();
      const breakdowns = new BreakdownGroups();
      for (const batch of batches) {
        readPendingBatch(batch.tuples, (day, pathId, classCode, visitor) => grouping.add(day, pathId, classCode, visitor));
        readBreakdownBatch(batch.breakdowns, (day, kind, key, visitor) => breakdowns.add(day, kind, key, visitor));
      }
      const groups = grouping.result();
      const current = await lockDaySets(trx, profile, projectKey, [...groups.values()]);
      for (const [key, group] of groups) {
        const entries = current.get(key) ?? new Map<number, PathEntry>();
        for (const [pathId, added] of group.paths) {
          const existing = entries.get(pathId);
          const visitors = sortedDistinct(added.visitors);
          entries.set(
            pathId,
            existing ? { visitors: unionSorted(existing.visitors, visitors), views: existing.views + added.views } : { visitors, views: added.views },
          );
        }
        await writeDaySet(trx, projectKey, group.day, group.classCode, entries);
      }
      await storeBreakdowns(trx, profile, projectKey, breakdowns.groups.values());
      await trx
        .deleteFrom('analytics_pending')
        .where(
          'id',
          'in',
          batches.map((batch) => batch.id),
        )
        .execute();
      return batches.length;
    });
    folded += count;
    if (count < batchesPerFold) return folded;
  }
}

/** Project keys with pending batches (folded by the periodic sweep, including other processes' leftovers). */
/** Folds one project's pending batches now (after an import, say), by its id; nothing to do for a project that recorded nothing. */
export async function foldProject(analytics: Pick<IngestState, 'storage' | 'ids'>, projectId: string): Promise<number> {
  const key = await existingProjectKey(analytics.storage.db, analytics.ids, projectId);
  return key === undefined ? 0 : foldPending(analytics.storage, key);
}

export async function projectsWithPending(db: Kysely<Database>): Promise<number[]> {
  const rows = await db.selectFrom('analytics_pending').select('project_key').distinct().execute();
  return rows.map((row) => Number(row.project_key));
}
