import { sql, type Kysely } from 'kysely';
import type { DialectProfile } from '../../storage/dialect.ts';
import type { Database } from '../../storage/schema.ts';
import { allBreakdownKinds, keepsVisitors, type BreakdownKind } from '../model/breakdown-batch.ts';
import { daySetEntries, decodeDaySet, encodeDaySet, sortedDistinct, unionSorted, type PathEntry } from '../model/day-set.ts';

/**
 * Breakdown days: per project, UTC day and kind, the views and sorted visitors of each agent or
 * referrer, in the day-set encoding (the agent or referrer id where a day set has the path id). They
 * are maintained like day sets: the fold unions pending entries in, a rebuild recomputes them.
 */

interface Group {
  day: number;
  kind: BreakdownKind;
  keys: Map<number, { visitors: number[]; views: number }>;
}

/** Collects breakdown entries per day and kind, then per agent or referrer. */
export class BreakdownGroups {
  readonly groups = new Map<number, Group>();

  add(day: number, kind: BreakdownKind, key: number, visitor: number): void {
    const id = day * allBreakdownKinds.length + kind;
    let group = this.groups.get(id);
    if (!group) this.groups.set(id, (group = { day, kind, keys: new Map() }));
    let entry = group.keys.get(key);
    if (!entry) group.keys.set(key, (entry = { visitors: [], views: 0 }));
    if (keepsVisitors(kind)) entry.visitors.push(visitor);
    entry.views++;
  }
}

/** Locks (creating empty ones first, as `lockDaySets` does) and reads the breakdown days of `keys`, keyed `day:kind`. */
async function lockBreakdownDays(
  trx: Kysely<Database>,
  profile: DialectProfile,
  projectKey: number,
  keys: { day: number; kind: BreakdownKind }[],
): Promise<Map<string, Map<number, PathEntry>>> {
  const sorted = [...keys].sort((a, b) => a.day - b.day || a.kind - b.kind);
  const empty = Buffer.alloc(0);
  const result = new Map<string, Map<number, PathEntry>>();
  for (let start = 0; start < sorted.length; start += 200) {
    const part = sorted.slice(start, start + 200);
    await trx
      .insertInto('analytics_breakdown_days')
      .values(part.map(({ day, kind }) => ({ project_key: projectKey, day, kind, revision: 0, data: empty })))
      .onConflict((conflict) => conflict.doNothing())
      .execute();
    const rows = await trx
      .selectFrom('analytics_breakdown_days')
      .select(['day', 'kind', 'data'])
      .where('project_key', '=', projectKey)
      .where('day', 'in', [...new Set(part.map((key) => key.day))])
      .orderBy('day')
      .orderBy('kind')
      .$if(profile.rowLocks, (query) => query.forUpdate())
      .execute();
    for (const row of rows) result.set(`${row.day}:${row.kind}`, daySetEntries(decodeDaySet(row.data)));
  }
  return result;
}

async function writeBreakdownDay(trx: Kysely<Database>, projectKey: number, day: number, kind: BreakdownKind, entries: Map<number, PathEntry>): Promise<void> {
  await trx
    .updateTable('analytics_breakdown_days')
    .set({ data: Buffer.from(encodeDaySet(entries)), revision: sql`revision + 1` })
    .where('project_key', '=', projectKey)
    .where('day', '=', day)
    .where('kind', '=', kind)
    .execute();
}

/** Unions grouped entries into the stored breakdown days (the fold), or replaces them (`replace`, a rebuild). */
export async function storeBreakdowns(
  trx: Kysely<Database>,
  profile: DialectProfile,
  projectKey: number,
  groups: Iterable<Group>,
  replace = false,
): Promise<void> {
  const list = [...groups];
  if (list.length === 0) return;
  const current = await lockBreakdownDays(trx, profile, projectKey, list);
  for (const group of list) {
    const entries = replace ? new Map<number, PathEntry>() : (current.get(`${group.day}:${group.kind}`) ?? new Map<number, PathEntry>());
    for (const [key, added] of group.keys) {
      const existing = entries.get(key);
      const visitors = sortedDistinct(added.visitors);
      entries.set(
        key,
        existing ? { visitors: unionSorted(existing.visitors, visitors), views: existing.views + added.views } : { visitors, views: added.views },
      );
    }
    await writeBreakdownDay(trx, projectKey, group.day, group.kind, entries);
  }
}

/** Empty groups for every kind of `day`, so a rebuild clears kinds the raw events no longer have. */
export function emptyDay(groups: BreakdownGroups, day: number): void {
  for (const kind of allBreakdownKinds) {
    const id = day * allBreakdownKinds.length + kind;
    if (!groups.groups.has(id)) groups.groups.set(id, { day, kind, keys: new Map() });
  }
}

/** A change to one visitor's part of a breakdown day: `views` added (negative: removed); the visitor added to or removed from the key's set, or left as is (null). */
export interface BreakdownChange {
  day: number;
  kind: BreakdownKind;
  key: number;
  visitor: number;
  views: number;
  member: boolean | null;
}

/** Applies changes to the stored breakdown days (a visit repair, fold/visit-repair.ts); keys left with nothing are dropped. */
export async function adjustBreakdowns(trx: Kysely<Database>, profile: DialectProfile, projectKey: number, changes: BreakdownChange[]): Promise<void> {
  const byDay = new Map<string, { day: number; kind: BreakdownKind; changes: BreakdownChange[] }>();
  for (const change of changes) {
    const id = `${change.day}:${change.kind}`;
    let group = byDay.get(id);
    if (!group) byDay.set(id, (group = { day: change.day, kind: change.kind, changes: [] }));
    group.changes.push(change);
  }
  if (byDay.size === 0) return;
  const current = await lockBreakdownDays(trx, profile, projectKey, [...byDay.values()]);
  for (const [id, group] of byDay) {
    const entries = current.get(id) ?? new Map<number, PathEntry>();
    // Per key: views added, visitors added and removed, applied in one pass over its sorted visitors.
    const byKey = new Map<number, { views: number; added: number[]; removed: Set<number> }>();
    for (const change of group.changes) {
      let key = byKey.get(change.key);
      if (!key) byKey.set(change.key, (key = { views: 0, added: [], removed: new Set() }));
      key.views += change.views;
      if (change.member === true) key.added.push(change.visitor);
      else if (change.member === false) key.removed.add(change.visitor);
    }
    for (const [key, { views, added, removed }] of byKey) {
      const entry = entries.get(key) ?? { visitors: new Uint32Array(0), views: 0 };
      let visitors = removed.size > 0 ? entry.visitors.filter((visitor) => !removed.has(visitor)) : entry.visitors;
      if (added.length > 0) visitors = unionSorted(visitors, sortedDistinct(added));
      if (entry.views + views <= 0 && visitors.length === 0) entries.delete(key);
      else entries.set(key, { visitors, views: entry.views + views });
    }
    await writeBreakdownDay(trx, projectKey, group.day, group.kind, entries);
  }
}
