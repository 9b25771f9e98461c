import { keepsVisitors, type BreakdownKind } from '../model/breakdown-batch.ts';
import type { BreakdownSources } from './breakdown-sources.ts';

/** One group's counts: views per kind, and distinct visitors over the kinds that keep them. */
export interface GroupCounts {
  views: Map<BreakdownKind, number>;
  visitors: number;
}

export interface GroupedCounts {
  groups: GroupCounts[];
  /** Distinct visitors over every group, and views of the kinds that keep visitors. */
  totals: { visitors: number; views: number };
}

/**
 * Exact counts per group (an agent, a referrer) of the sources. `groupOf` maps an entry's kind and
 * agent or referrer id to its group, or -1 to leave it out. Visitors are counted with one stamp per
 * visitor: walking the visitor lists group by group, a visitor counts once per group (stamp = group
 * + 1), and once over all groups where its stamp was still 0, in the same walk, so nothing is cleared or sorted. Lists
 * are kept as (array, start, end) in flat arrays and put in group order by counting, so a range of
 * many days and referrers allocates no object per list.
 */
export function countGroups(sources: BreakdownSources, groupCount: number, groupOf: (kind: BreakdownKind, key: number) => number): GroupedCounts {
  const groups: GroupCounts[] = Array.from({ length: groupCount }, () => ({ views: new Map(), visitors: 0 }));
  const totals = { visitors: 0, views: 0 };
  const arrays: Uint32Array[] = [];
  const listGroups: number[] = [];
  const starts: number[] = [];
  const ends: number[] = [];
  let maxVisitor = 0;
  const addViews = (group: number, kind: BreakdownKind, views: number) => {
    groups[group].views.set(kind, (groups[group].views.get(kind) ?? 0) + views);
    if (keepsVisitors(kind)) totals.views += views;
  };
  const addList = (group: number, visitors: Uint32Array, start: number, end: number) => {
    arrays.push(visitors);
    listGroups.push(group);
    starts.push(start);
    ends.push(end);
  };
  for (const { kind, set } of sources.days) {
    for (let index = 0; index < set.paths.length; index++) {
      const group = groupOf(kind, set.paths[index]);
      if (group < 0) continue;
      addViews(group, kind, set.views[index]);
      const start = set.starts[index];
      const end = set.starts[index + 1];
      if (end > start) {
        addList(group, set.visitors, start, end);
        if (set.visitors[end - 1] > maxVisitor) maxVisitor = set.visitors[end - 1];
      }
    }
  }
  const looseVisitors = new Map<number, number[]>();
  for (const entry of sources.loose) {
    const group = groupOf(entry.kind, entry.key);
    if (group < 0) continue;
    addViews(group, entry.kind, 1);
    if (!keepsVisitors(entry.kind)) continue;
    let list = looseVisitors.get(group);
    if (!list) looseVisitors.set(group, (list = []));
    list.push(entry.visitor);
    if (entry.visitor > maxVisitor) maxVisitor = entry.visitor;
  }
  for (const [group, visitors] of looseVisitors) addList(group, Uint32Array.from(visitors), 0, visitors.length);

  // Counting sort of the lists by group.
  const firstOfGroup = new Uint32Array(groupCount + 1);
  for (const group of listGroups) firstOfGroup[group + 1]++;
  for (let group = 0; group < groupCount; group++) firstOfGroup[group + 1] += firstOfGroup[group];
  const order = new Uint32Array(listGroups.length);
  const next = firstOfGroup.slice(0, groupCount);
  listGroups.forEach((group, list) => (order[next[group]++] = list));

  // A visitor's stamp is 0 until a group first counts it: that first count is also its one count in the totals.
  const stamp = new Uint32Array(maxVisitor + 1);
  for (let group = 0; group < groupCount; group++) {
    const mark = group + 1;
    let counted = 0;
    let fresh = 0;
    for (let position = firstOfGroup[group]; position < firstOfGroup[group + 1]; position++) {
      const list = order[position];
      const visitors = arrays[list];
      for (let index = starts[list]; index < ends[list]; index++) {
        const visitor = visitors[index];
        const seen = stamp[visitor];
        if (seen !== mark) {
          if (seen === 0) fresh++;
          stamp[visitor] = mark;
          counted++;
        }
      }
    }
    groups[group].visitors = counted;
    totals.visitors += fresh;
  }
  return { groups, totals };
}
