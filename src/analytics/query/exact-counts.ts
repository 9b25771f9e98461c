import { sortByCodePoint } from '../../lib/code-point-order.ts';
import { ClassCode, classCodes } from '../model/class-codes.ts';
import type { Counts, Measure, Ranking, Sources } from './types.ts';

/**
 * The visitor lists of the sources per path ("slot", in order of first appearance), as (array, start,
 * end) in flat arrays put in path order by counting, then by class within a path: a range of many days
 * and pages allocates no object per list (a typed-array view per list cost more than walking its entries).
 */
export interface PathLists {
  pathIds: number[];
  /** Views per slot and class: slot × 2 + class. */
  views: number[];
  /** The visitor array of list `l` is `arrays[arrayOf[l]]`, its entries `[starts[l], ends[l])`. */
  arrays: Uint32Array[];
  arrayOf: Uint32Array;
  starts: Uint32Array;
  ends: Uint32Array;
  /** Lists of slot s and class c are order[firstOfSlot[s × 2 + c] .. firstOfSlot[s × 2 + c + 1]). */
  firstOfSlot: Uint32Array;
  order: Uint32Array;
  maxVisitor: number;
}

/**
 * Builds the lists in typed arrays sized up front, with slots looked up in an array indexed by path id
 * (a project's path ids are dense): at 90 days of a thousand pages, about 200,000 lists, a Map lookup
 * and four growing arrays per list cost as much as walking the entries of a filtered query's top pages.
 */
export function pathLists(sources: Sources): PathLists {
  let maxPathId = -1;
  let listCount = 0;
  for (const { set } of sources.days) {
    listCount += set.paths.length;
    if (set.paths.length > 0 && set.paths[set.paths.length - 1] > maxPathId) maxPathId = set.paths[set.paths.length - 1];
  }
  for (const view of sources.loose) if (view.pathId > maxPathId) maxPathId = view.pathId;
  // Slot + 1 of each path id, 0 for none yet.
  const slotOf = new Uint32Array(maxPathId + 1);
  const pathIds: number[] = [];
  const views: number[] = [];
  const slot = (pathId: number) => {
    const found = slotOf[pathId];
    if (found !== 0) return found - 1;
    slotOf[pathId] = pathIds.push(pathId);
    views.push(0, 0);
    return pathIds.length - 1;
  };
  // Loose views by path and class (pathId × 2 + class), given slots after the day sets' paths.
  const loose = new Map<number, number[]>();
  let maxVisitor = 0;
  for (const view of sources.loose) {
    const key = view.pathId * 2 + view.classCode;
    let list = loose.get(key);
    if (!list) loose.set(key, (list = []));
    list.push(view.visitor);
    if (view.visitor > maxVisitor) maxVisitor = view.visitor;
  }
  listCount += loose.size;
  const arrays: Uint32Array[] = sources.days.map(({ set }) => set.visitors);
  const arrayOf = new Uint32Array(listCount);
  const starts = new Uint32Array(listCount);
  const ends = new Uint32Array(listCount);
  const listKeys = new Uint32Array(listCount);
  let lists = 0;
  // Plain loops: a callback would capture `lists` and `maxVisitor`, and each access would go through its context.
  for (let array = 0; array < sources.days.length; array++) {
    const { classCode, set } = sources.days[array];
    const { paths, starts: setStarts, visitors, views: setViews } = set;
    for (let index = 0; index < paths.length; index++) {
      const start = setStarts[index];
      const end = setStarts[index + 1];
      const found = slot(paths[index]);
      if (end === start) continue;
      views[found * 2 + classCode] += setViews[index];
      arrayOf[lists] = array;
      starts[lists] = start;
      ends[lists] = end;
      listKeys[lists++] = found * 2 + classCode;
      if (visitors[end - 1] > maxVisitor) maxVisitor = visitors[end - 1];
    }
  }
  for (const [pathClass, list] of loose) {
    const key = slot(Math.floor(pathClass / 2)) * 2 + (pathClass % 2);
    views[key] += list.length;
    arrayOf[lists] = arrays.push(Uint32Array.from(list)) - 1;
    starts[lists] = 0;
    ends[lists] = list.length;
    listKeys[lists++] = key;
  }
  const keys = pathIds.length * 2;
  const firstOfSlot = new Uint32Array(keys + 1);
  for (let list = 0; list < lists; list++) firstOfSlot[listKeys[list] + 1]++;
  for (let key = 0; key < keys; key++) firstOfSlot[key + 1] += firstOfSlot[key];
  const order = new Uint32Array(lists);
  const next = firstOfSlot.slice(0, keys);
  for (let list = 0; list < lists; list++) order[next[listKeys[list]]++] = list;
  return { pathIds, views, arrays, arrayOf, starts, ends, firstOfSlot, order, maxVisitor };
}

/**
 * Exact counts over the sources. For unique visitors, each path's day lists are walked once with a
 * per-visitor stamp (the path's number and the classes seen), so a visitor seen on many days or as
 * both human and AI is counted once per class and once in `total`; a second byte array does the same
 * site-wide. Cost is linear in the entries read, with no sorting or hashing.
 */
export function rank(sources: Sources, measure: Measure): Ranking {
  const { pathIds, views, arrays, arrayOf, starts, ends, firstOfSlot, order, maxVisitor } = pathLists(sources);
  const rows: Ranking['rows'] = [];
  const totals: Counts = { human: 0, ai: 0, total: 0 };
  if (measure === 'views') {
    pathIds.forEach((pathId, found) => {
      const human = views[found * 2];
      const ai = views[found * 2 + 1];
      if (human + ai > 0) rows.push({ pathId, human, ai, total: human + ai });
      totals.human += human;
      totals.ai += ai;
    });
    totals.total = totals.human + totals.ai;
    return { totals, rows };
  }

  const slots = pathIds.length;
  // stamp[v] = (slot + 1) * 4 + classBits, so nothing is cleared between paths.
  const stamp = new Uint32Array(maxVisitor + 1);
  const site = new Uint8Array(maxVisitor + 1);
  const siteCounts = new Uint32Array(2);
  let siteTotal = 0;
  for (let found = 0; found < slots; found++) {
    const base = (found + 1) * 4;
    let human = 0;
    let ai = 0;
    let total = 0;
    for (const classCode of classCodes) {
      const bit = classCode + 1;
      let counted = 0;
      for (let position = firstOfSlot[found * 2 + classCode]; position < firstOfSlot[found * 2 + classCode + 1]; position++) {
        const list = order[position];
        const visitors = arrays[arrayOf[list]];
        const end = ends[list];
        for (let index = starts[list]; index < end; index++) {
          const visitor = visitors[index];
          const mark = stamp[visitor];
          if (mark < base) {
            stamp[visitor] = base | bit;
            total++;
          } else if ((mark & bit) === 0) stamp[visitor] = mark | bit;
          else continue;
          counted++;
          const seen = site[visitor];
          if ((seen & bit) === 0) {
            site[visitor] = seen | bit;
            siteCounts[classCode]++;
            if (seen === 0) siteTotal++;
          }
        }
      }
      if (classCode === ClassCode.human) human = counted;
      else ai = counted;
    }
    if (total > 0) rows.push({ pathId: pathIds[found], human, ai, total });
  }
  totals.human = siteCounts[ClassCode.human];
  totals.ai = siteCounts[ClassCode.ai];
  totals.total = siteTotal;
  return { totals, rows };
}

/** Orders rows by total descending, then path ascending by code point, as the filtered queries order them in SQL. */
export function order(ranking: Ranking, names: Map<number, string>): Ranking {
  const rows = sortByCodePoint(
    ranking.rows,
    (a, b) => b.total - a.total,
    (row) => names.get(row.pathId)!,
  );
  return { totals: ranking.totals, rows };
}
