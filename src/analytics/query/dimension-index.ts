import { ClassCode } from '../model/class-codes.ts';
import type { BreakdownKind } from '../model/breakdown-batch.ts';
import type { BreakdownDay } from './breakdown-sources.ts';
import { buildRangeIndex } from './range-index-build.ts';
import type { RangeIndex } from './range-index.ts';

/**
 * A range index (range-index.ts) over one dimension's breakdown days: its slots are the dimension's
 * values instead of paths, its classes the human and AI kinds. A value's unique visitors over any
 * whole-day range are then a binary search per day, as a page's are. Several keys may share a value
 * (user agents of one browser, every AI agent's `bot` device): their lists keep their own places in
 * each day's set, and the index counts a visitor once per value and day whatever lists it is in.
 */
export interface DimensionIndex {
  /** Each slot's value; the slot after the last value holds keys without one (in the totals, in no row). */
  values: string[];
  /** The slot of a breakdown day's key, as the index was built. */
  slotOf: (kind: BreakdownKind, key: number) => number;
  index: RangeIndex;
}

/** Revisions of breakdown days as an index over them records them, `day:class`. */
export function indexRevisions(days: BreakdownDay[], humanKind: BreakdownKind): Map<string, number> {
  return new Map(days.map(({ day, kind, revision }) => [`${day}:${kind === humanKind ? ClassCode.human : ClassCode.ai}`, revision]));
}

/**
 * Builds the index of `days` (breakdown days of one dimension's human and AI kinds, all inside
 * [spanStart, spanStart + span)), each key counted in slot `slotOf(kind, key)` (`values.length` for none).
 */
export async function buildDimensionIndex(
  days: BreakdownDay[],
  humanKind: BreakdownKind,
  values: string[],
  slotOf: (kind: BreakdownKind, key: number) => number,
  spanStart: number,
  span: number,
): Promise<DimensionIndex> {
  const indexed = days.map(({ day, kind, revision, set }) => ({
    day,
    classCode: kind === humanKind ? ClassCode.human : ClassCode.ai,
    revision,
    set: { ...set, paths: set.paths.map((key) => slotOf(kind, key)) },
  }));
  return { values, slotOf, index: await buildRangeIndex(indexed, spanStart, span) };
}
