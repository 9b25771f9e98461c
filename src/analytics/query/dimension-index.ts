import type { Kysely } from 'kysely';
import type { Database } from '../../storage/schema.ts';
import { inSnapshot } from '../../storage/snapshot.ts';
import { ClassCode, classCodes } from '../model/class-codes.ts';
import type { BreakdownKind } from '../model/breakdown-batch.ts';
import { splitRange } from '../model/days.ts';
import { breakdownRevisions, loadBreakdownDays, pendingBreakdowns, type BreakdownDay, type BreakdownRevision } from './breakdown-sources.ts';
import type { QueryState } from './caches.ts';
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
  /**
   * Views per (class code, slot) before each day of the span: `(classCode * slots + slot) * (span + 1) + day`
   * holds the views of the span's days before `day`, so a range's views are one subtraction and a
   * breakdown needs no decoded breakdown day (those may have left the query cache).
   */
  viewsBefore: Float64Array;
}

/** Views of [firstDay, endDay) of one slot and class code (0 outside the span). */
export function slotViews(dimension: DimensionIndex, classCode: ClassCode, slot: number, firstDay: number, endDay: number): number {
  const { spanStart, span } = dimension.index;
  const first = Math.min(Math.max(firstDay - spanStart, 0), span);
  const end = Math.min(Math.max(endDay - spanStart, 0), span);
  const base = (classCode * (dimension.values.length + 1) + slot) * (span + 1);
  return dimension.viewsBefore[base + end] - dimension.viewsBefore[base + first];
}

/**
 * The whole days [firstDay, endDay) of [from, to) when `dimension` (over the breakdown days of `kinds`, the first its
 * human kind) serves them: whole days only, none of them pending, and every breakdown day at the revision the index
 * was built from (read from the revisions' covering index, without decoding a day). Null otherwise.
 */
export async function servedDays(
  trx: Kysely<Database>,
  dimension: DimensionIndex,
  projectKey: number,
  kinds: readonly BreakdownKind[],
  from: number,
  to: number,
): Promise<{ firstDay: number; endDay: number } | null> {
  const { firstDay, endDay, partial } = splitRange(from, to);
  if (partial.length > 0 || endDay <= firstDay) return null;
  const revisions = indexRevisions(await breakdownRevisions(trx, projectKey, firstDay, endDay, kinds), kinds[0]);
  if (!dimension.index.covers(firstDay, endDay, revisions)) return null;
  return (await pendingBreakdowns(trx, projectKey, firstDay, endDay, kinds)).length > 0 ? null : { firstDay, endDay };
}

/**
 * What a dimension index is built from: the breakdown days of `kinds` over the newest `spanDays` days with data, and
 * what `alongside` reads of them (their keys' values), in one snapshot. Null when there are none.
 */
export async function indexSpan<T>(
  state: Pick<QueryState, 'storage' | 'caches'>,
  projectKey: number,
  kinds: readonly BreakdownKind[],
  spanDays: number,
  alongside: (trx: Kysely<Database>, days: BreakdownDay[]) => Promise<T>,
): Promise<{ spanStart: number; span: number; days: BreakdownDay[]; values: T } | null> {
  return inSnapshot(state.storage, async (trx) => {
    const bounds = await trx
      .selectFrom('analytics_breakdown_days')
      .select((eb) => [eb.fn.min('day').as('first'), eb.fn.max('day').as('last')])
      .where('project_key', '=', projectKey)
      .where('kind', 'in', [...kinds])
      .executeTakeFirstOrThrow();
    if (bounds.first === null || bounds.last === null) return null;
    const endDay = Number(bounds.last) + 1;
    const spanStart = Math.max(Number(bounds.first), endDay - spanDays);
    const days = await loadBreakdownDays(trx, state.caches, projectKey, spanStart, endDay, kinds);
    return { spanStart, span: endDay - spanStart, days, values: await alongside(trx, days) };
  });
}

/** Revisions of breakdown days as an index over them records them, `day:class`. */
export function indexRevisions(days: BreakdownRevision[], humanKind: BreakdownKind): Map<string, number> {
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
  const slots = values.length + 1;
  const viewsBefore = new Float64Array(classCodes.length * slots * (span + 1));
  for (const { day, classCode, set } of indexed)
    for (let index = 0; index < set.paths.length; index++)
      viewsBefore[(classCode * slots + set.paths[index]) * (span + 1) + day - spanStart + 1] += set.views[index];
  // Each (class, slot)'s views per day become running sums.
  for (let row = 0; row < classCodes.length * slots; row++)
    for (let day = 1; day <= span; day++) viewsBefore[row * (span + 1) + day] += viewsBefore[row * (span + 1) + day - 1];
  return { values, slotOf, index: await buildRangeIndex(indexed, spanStart, span), viewsBefore };
}
