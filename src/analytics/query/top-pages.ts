import { byCodeUnit, codePointKey } from '../../lib/code-point-order.ts';
import { ClassCode } from '../model/class-codes.ts';
import { pathLists } from './exact-counts.ts';
import type { Ranking, Sources } from './types.ts';

/** Rows of a visitors ranking whose first `exact` are the ranking's first rows, and how many rows the whole ranking has. */
export interface TopRows {
  rows: Ranking['rows'];
  exact: number;
  count: number;
}

/** A counted row beside its path's code-point key (lib/code-point-order.ts), so that ties compare natively. */
interface KeyedRow {
  row: Ranking['rows'][number];
  key: string;
}

/** Total descending, then path ascending by code point, as `order` ranks. */
const before = (a: KeyedRow, b: KeyedRow) => b.row.total - a.row.total || byCodeUnit(a.key, b.key);

/**
 * The first `wanted` rows of a visitors ranking without counting every page: a page's visitors are at
 * most the entries of its lists, so pages are counted exactly in descending order of that bound, and
 * counting stops once `wanted` pages are counted and the `wanted`-th of them has more visitors than the
 * next page's bound (no page left could rank before it, nor tie with it). Under a filter most entries
 * belong to the busiest pages, which are counted first. Site-wide totals are not counted here.
 */
export function topVisitors(sources: Sources, wanted: number, names: Map<number, string>): TopRows {
  const { pathIds, arrays, arrayOf, starts, ends, firstOfSlot, order, maxVisitor } = pathLists(sources);
  const bound = pathIds.map((_, slot) => {
    let entries = 0;
    for (let position = firstOfSlot[slot * 2]; position < firstOfSlot[slot * 2 + 2]; position++) entries += ends[order[position]] - starts[order[position]];
    return entries;
  });
  const slots = pathIds.map((_, slot) => slot).filter((slot) => bound[slot] > 0);
  slots.sort((a, b) => bound[b] - bound[a]);
  const stamp = new Uint32Array(maxVisitor + 1);
  const rows: KeyedRow[] = [];
  for (let next = 0; next < slots.length; next++) {
    if (rows.length >= wanted) {
      rows.sort(before);
      rows.length = wanted;
      if (wanted === 0 || rows[wanted - 1].row.total > bound[slots[next]]) break;
    }
    const slot = slots[next];
    const base = (next + 1) * 4;
    const counts = [0, 0];
    let total = 0;
    for (const classCode of [ClassCode.human, ClassCode.ai]) {
      const bit = classCode + 1;
      for (let position = firstOfSlot[slot * 2 + classCode]; position < firstOfSlot[slot * 2 + classCode + 1]; position++) {
        const list = order[position];
        const visitors = arrays[arrayOf[list]];
        const end = ends[list];
        for (let index = starts[list]; index < end; index++) {
          const mark = stamp[visitors[index]];
          if (mark < base) {
            stamp[visitors[index]] = base | bit;
            total++;
          } else if ((mark & bit) === 0) stamp[visitors[index]] = mark | bit;
          else continue;
          counts[classCode]++;
        }
      }
    }
    const row = { pathId: pathIds[slot], human: counts[ClassCode.human], ai: counts[ClassCode.ai], total };
    rows.push({ row, key: codePointKey(names.get(row.pathId)!) });
  }
  const top = rows
    .sort(before)
    .slice(0, wanted)
    .map(({ row }) => row);
  return { rows: top, exact: top.length, count: slots.length };
}
