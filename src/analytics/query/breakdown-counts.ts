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
 * visitor: walking the lists group by group, a visitor counts once per group (stamp = group + 1), then
 * once over all groups (stamp = group count + 1), so nothing is cleared or sorted.
 */
export function countGroups(sources: BreakdownSources, groupCount: number, groupOf: (kind: BreakdownKind, key: number) => number): GroupedCounts {
  const groups: GroupCounts[] = Array.from({ length: groupCount }, () => ({ views: new Map(), visitors: 0 }));
  const lists: { group: number; visitors: ArrayLike<number> }[] = [];
  const totals = { visitors: 0, views: 0 };
  let maxVisitor = 0;
  const addViews = (group: number, kind: BreakdownKind, views: number) => {
    groups[group].views.set(kind, (groups[group].views.get(kind) ?? 0) + views);
    if (keepsVisitors(kind)) totals.views += views;
  };
  for (const { kind, set } of sources.days) {
    for (let index = 0; index < set.paths.length; index++) {
      const group = groupOf(kind, set.paths[index]);
      if (group < 0) continue;
      addViews(group, kind, set.views[index]);
      const start = set.starts[index];
      const end = set.starts[index + 1];
      if (end > start) {
        lists.push({ group, visitors: set.visitors.subarray(start, end) });
        maxVisitor = Math.max(maxVisitor, set.visitors[end - 1]);
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
    maxVisitor = Math.max(maxVisitor, entry.visitor);
  }
  for (const [group, visitors] of looseVisitors) lists.push({ group, visitors });
  lists.sort((a, b) => a.group - b.group);
  const stamp = new Uint32Array(maxVisitor + 1);
  for (const { group, visitors } of lists) {
    const mark = group + 1;
    let counted = 0;
    for (let index = 0; index < visitors.length; index++) {
      const visitor = visitors[index];
      if (stamp[visitor] !== mark) {
        stamp[visitor] = mark;
        counted++;
      }
    }
    groups[group].visitors += counted;
  }
  const everyone = groupCount + 1;
  for (const { visitors } of lists) {
    for (let index = 0; index < visitors.length; index++) {
      const visitor = visitors[index];
      if (stamp[visitor] !== everyone) {
        stamp[visitor] = everyone;
        totals.visitors++;
      }
    }
  }
  return { groups, totals };
}
