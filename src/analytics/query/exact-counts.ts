import { ClassCode, classCodes } from '../model/class-codes.ts';
import type { Counts, Measure, Ranking, Sources } from './types.ts';

interface PathSlices {
  lists: Uint32Array[][];
  views: [number, number];
}

/**
 * Exact counts over the sources. For unique visitors, each path's day lists are walked once with a
 * per-visitor stamp (the path's number and the classes seen), so a visitor seen on many days or as
 * both human and AI is counted once per class and once in `total`; a second byte array does the same
 * site-wide. Cost is linear in the entries read, with no sorting or hashing.
 */
export function rank(sources: Sources, measure: Measure): Ranking {
  const byPath = new Map<number, PathSlices>();
  const slices = (pathId: number) => {
    let entry = byPath.get(pathId);
    if (!entry) byPath.set(pathId, (entry = { lists: [[], []], views: [0, 0] }));
    return entry;
  };
  let maxVisitor = 0;
  for (const { classCode, set } of sources.days) {
    for (let index = 0; index < set.paths.length; index++) {
      const entry = slices(set.paths[index]);
      const list = set.visitors.subarray(set.starts[index], set.starts[index + 1]);
      if (list.length === 0) continue;
      entry.lists[classCode].push(list);
      entry.views[classCode] += set.views[index];
      if (list[list.length - 1] > maxVisitor) maxVisitor = list[list.length - 1];
    }
  }
  const loose = new Map<number, [number[], number[]]>();
  for (const view of sources.loose) {
    let lists = loose.get(view.pathId);
    if (!lists) loose.set(view.pathId, (lists = [[], []]));
    lists[view.classCode].push(view.visitor);
    slices(view.pathId).views[view.classCode]++;
    if (view.visitor > maxVisitor) maxVisitor = view.visitor;
  }
  for (const [pathId, lists] of loose) lists.forEach((list, classCode) => list.length && slices(pathId).lists[classCode].push(Uint32Array.from(list)));

  const rows: Ranking['rows'] = [];
  const totals: Counts = { human: 0, ai: 0, total: 0 };
  if (measure === 'views') {
    for (const [pathId, entry] of byPath) {
      const [human, ai] = entry.views;
      if (human + ai > 0) rows.push({ pathId, human, ai, total: human + ai });
      totals.human += human;
      totals.ai += ai;
    }
    totals.total = totals.human + totals.ai;
    return { totals, rows };
  }

  // stamp[v] = pathNumber * 4 + classBits, so nothing is cleared between paths.
  const stamp = new Uint32Array(maxVisitor + 1);
  const site = new Uint8Array(maxVisitor + 1);
  let pathNumber = 0;
  for (const [pathId, entry] of byPath) {
    pathNumber++;
    const base = pathNumber * 4;
    const counts = [0, 0];
    let total = 0;
    for (const classCode of classCodes) {
      const bit = classCode + 1;
      for (const list of entry.lists[classCode]) {
        for (let index = 0; index < list.length; index++) {
          const visitor = list[index];
          const mark = stamp[visitor];
          if (mark < base) {
            stamp[visitor] = base | bit;
            counts[classCode]++;
            total++;
          } else if ((mark & bit) === 0) {
            stamp[visitor] = mark | bit;
            counts[classCode]++;
          } else continue;
          const seen = site[visitor];
          if ((seen & bit) === 0) {
            site[visitor] = seen | bit;
            if (classCode === ClassCode.human) totals.human++;
            else totals.ai++;
            if (seen === 0) totals.total++;
          }
        }
      }
    }
    if (total > 0) rows.push({ pathId, human: counts[0], ai: counts[1], total });
  }
  return { totals, rows };
}

/** Orders rows by total descending, then path ascending (by code unit, as JavaScript compares strings). */
export function order(ranking: Ranking, names: Map<number, string>): Ranking {
  const rows = [...ranking.rows].sort((a, b) => {
    if (a.total !== b.total) return b.total - a.total;
    const left = names.get(a.pathId)!;
    const right = names.get(b.pathId)!;
    return left < right ? -1 : left > right ? 1 : 0;
  });
  return { totals: ranking.totals, rows };
}
