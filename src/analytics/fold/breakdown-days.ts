import type { Kysely } from 'kysely';
import type { DialectProfile } from '../../storage/dialect.ts';
import type { Database } from '../../storage/schema.ts';
import { allBreakdownKinds, keepsVisitors, type BreakdownKind } from '../model/breakdown-batch.ts';
import { encodeDaySet, sortedDistinct, unionSorted, type PathEntry } from '../model/day-set.ts';
import { dayKey, mergeDay, readDays, writeDay, type DayKey, type DayUpdate, type StoredDay } from './stored-days.ts';

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

/** The breakdown days' keys of groups (or changes), as `readDays` takes them. */
export const breakdownKeys = (groups: Iterable<{ day: number; kind: BreakdownKind }>): DayKey[] => [...groups].map(({ day, kind }) => ({ day, part: kind }));

/** Grouped entries unioned into the breakdown days read (the fold), or replacing them (`replace`, a rebuild), encoded. */
export const mergeBreakdowns = (current: Map<string, StoredDay>, groups: Iterable<Group>, replace = false): DayUpdate[] =>
  [...groups].map((group) => mergeDay({ day: group.day, part: group.kind }, current.get(dayKey(group.day, group.kind)), group.keys, replace));

/** Unions grouped entries into the stored breakdown days, or replaces them (`replace`, a rebuild), in `trx` with the rows locked. */
export async function storeBreakdowns(
  trx: Kysely<Database>,
  profile: DialectProfile,
  projectKey: number,
  groups: Iterable<Group>,
  replace = false,
): Promise<void> {
  const list = [...groups];
  if (list.length === 0) return;
  const current = await readDays(trx, profile, 'analytics_breakdown_days', projectKey, breakdownKeys(list), { lock: true, entries: !replace });
  for (const update of mergeBreakdowns(current, list, replace)) await writeDay(trx, 'analytics_breakdown_days', projectKey, update.key, update.data);
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
    const id = dayKey(change.day, change.kind);
    let group = byDay.get(id);
    if (!group) byDay.set(id, (group = { day: change.day, kind: change.kind, changes: [] }));
    group.changes.push(change);
  }
  if (byDay.size === 0) return;
  const current = await readDays(trx, profile, 'analytics_breakdown_days', projectKey, breakdownKeys(byDay.values()), { lock: true, entries: true });
  for (const [id, group] of byDay) {
    const entries = current.get(id)?.entries ?? new Map<number, PathEntry>();
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
    await writeDay(trx, 'analytics_breakdown_days', projectKey, { day: group.day, part: group.kind }, encodeDaySet(entries));
  }
}
