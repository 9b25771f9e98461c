import { inSnapshot } from '../../storage/snapshot.ts';
import { existingProjectKey } from '../ingest/dense-ids.ts';
import { ClassCode } from '../model/class-codes.ts';
import { dayMs, dayOf, splitRange } from '../model/days.ts';
import type { QueryState } from './caches.ts';
import type { Counts, Measure } from './types.ts';
import { freshIndex, rawViews, readSources } from './read-sources.ts';

export interface DayCounts extends Counts {
  /** UTC day number (days since 1970-01-01). */
  day: number;
}

/**
 * Counts per UTC day overlapping [from, to), oldest first, zeros included: unique visitors within
 * each day (a visitor seen as human and AI counts once in `total`), or views. One snapshot read of
 * the whole range. Visitors and views of whole days come from the range index when it serves them; otherwise
 * each visitor entry is walked once, stamped with its day and the classes seen.
 */
export async function dailySeries(state: QueryState, projectId: string, measure: Measure, from: number, to: number): Promise<DayCounts[]> {
  const firstDay = dayOf(from);
  const days: DayCounts[] = [];
  for (let day = firstDay; day * dayMs < to; day++) days.push({ day, human: 0, ai: 0, total: 0 });
  const key = await existingProjectKey(state.storage.db, state.ids, projectId);
  if (key === undefined) return days;
  const sources = await inSnapshot(state.storage, async (trx) => {
    // Whole days the range index serves are counted there, one day at a time; partial days from raw events.
    const { firstDay, endDay, partial } = splitRange(from, to);
    const index = endDay > firstDay ? await freshIndex(trx, state, key, firstDay, endDay) : null;
    if (!index) return readSources(trx, state, key, from, to);
    const counted = measure === 'visitors' ? index.siteDays(firstDay, endDay) : index.siteDayViews(firstDay, endDay);
    counted.forEach((counts, offset) => Object.assign(days[firstDay + offset - days[0].day], counts));
    const loose = [];
    for (const [start, end] of partial) loose.push(...(await rawViews(trx, state.ids, key, start, end)));
    return { days: [], loose };
  });
  const lists: { day: number; classCode: ClassCode; visitors: ArrayLike<number>; views: number }[] = [];
  let maxVisitor = 0;
  for (const { day, classCode, set } of sources.days) {
    let views = 0;
    for (const count of set.views) views += count;
    lists.push({ day, classCode, visitors: set.visitors, views });
    // Each path's visitors are sorted: its last one is its largest.
    for (let index = 1; index < set.starts.length; index++)
      if (set.starts[index] > set.starts[index - 1]) maxVisitor = Math.max(maxVisitor, set.visitors[set.starts[index] - 1]);
  }
  for (const view of sources.loose) {
    lists.push({ day: view.day, classCode: view.classCode, visitors: [view.visitor], views: 1 });
    if (view.visitor > maxVisitor) maxVisitor = view.visitor;
  }
  // Walked day by day, with stamp[v] = (day slot + 1) * 4 + class bits, so nothing is cleared between days.
  lists.sort((a, b) => a.day - b.day);
  const stamp = new Uint32Array(maxVisitor + 1);
  for (const { day, classCode, visitors, views } of lists) {
    const entry = days[day - firstDay];
    if (measure === 'views') {
      if (classCode === ClassCode.human) entry.human += views;
      else entry.ai += views;
      entry.total += views;
      continue;
    }
    const base = (day - firstDay + 1) * 4;
    const bit = classCode + 1;
    for (let index = 0; index < visitors.length; index++) {
      const visitor = visitors[index];
      const mark = (stamp[visitor] & ~3) === base ? stamp[visitor] : base;
      if (mark & bit) continue;
      if (mark === base) entry.total++;
      if (classCode === ClassCode.human) entry.human++;
      else entry.ai++;
      stamp[visitor] = mark | bit;
    }
  }
  return days;
}
