import { ClassCode, CountClass, countClasses } from '../model/class-codes.ts';
import type { Counts, Ranking } from './types.ts';

/**
 * Exact unique-visitor counts of any whole-day range inside a span, without touching visitor ids at
 * query time. Each (path or site, class, day) entry is stored with the previous day, inside the
 * span, on which the same visitor was seen there (0 for none). A visitor seen in [a, b) is counted
 * exactly once, on its first day in the range: the one entry in [a, b) whose previous day is before
 * a. So a count is, per day in range, how many entries have a previous day before a: one binary
 * search in that day's sorted histogram of previous days. The answer for [a, b) depends only on the
 * day sets of [a, b), so the index serves a range as long as those kept the revisions it was built
 * from (see `covers`).
 */
export class RangeIndex {
  readonly spanStart: number;
  readonly span: number;
  readonly pathIds: Uint32Array;
  readonly #revisions: Map<string, number>;
  /** End of each cell's buckets, cells ordered by (class, slot, day); a cell starts where the previous one ends. */
  readonly #cellEnds: Uint32Array;
  /** Per bucket: previous day + 1 (0 for none), ascending within a cell, and the running count of entries. */
  readonly #previous: Uint16Array;
  readonly #cumulative: Uint32Array;
  /** Site-wide views per (class code, day of the span): `classCode * span + day`. */
  readonly #siteViews: Float64Array;

  constructor(
    spanStart: number,
    span: number,
    pathIds: Uint32Array,
    revisions: Map<string, number>,
    cellEnds: Uint32Array,
    previous: Uint16Array,
    cumulative: Uint32Array,
    siteViews: Float64Array,
  ) {
    this.spanStart = spanStart;
    this.span = span;
    this.pathIds = pathIds;
    this.#revisions = revisions;
    this.#cellEnds = cellEnds;
    this.#previous = previous;
    this.#cumulative = cumulative;
    this.#siteViews = siteViews;
  }

  /**
   * True when the day sets of [firstDay, endDay) (`day:class` → revision, as read now) are the
   * indexed ones. Days without day sets count nothing, so the range may reach past the span.
   */
  covers(firstDay: number, endDay: number, revisions: Map<string, number>): boolean {
    for (const [key, revision] of revisions) if (this.#revisions.get(key) !== revision) return false;
    for (const key of this.#revisions.keys()) {
      const day = Number(key.slice(0, key.indexOf(':')));
      if (day >= firstDay && day < endDay && !revisions.has(key)) return false;
    }
    return true;
  }

  /** Entries of a cell whose previous day is before `first` (all of them when the cell is the first day). */
  #counted(cell: number, first: number): number {
    return countedIn(this.#previous, this.#cumulative, cell === 0 ? 0 : this.#cellEnds[cell - 1], this.#cellEnds[cell], first);
  }

  /** Site-wide unique visitors of each day of [firstDay, endDay), each day on its own; `covers` must hold. */
  siteDays(firstDay: number, endDay: number): Counts[] {
    const slot = this.pathIds.length;
    const slots = slot + 1;
    const result: Counts[] = [];
    for (let day = firstDay; day < endDay; day++) {
      const offset = day - this.spanStart;
      // Within one day every entry's previous day is earlier, so the whole cell counts.
      const count = (countClass: number) => (offset < 0 || offset >= this.span ? 0 : this.#counted((countClass * slots + slot) * this.span + offset, offset));
      const [human, ai, total] = countClasses.map(count);
      result.push({ human, ai, total });
    }
    return result;
  }

  /** Site-wide views of each day of [firstDay, endDay), summed when the index was built; `covers` must hold. */
  siteDayViews(firstDay: number, endDay: number): Counts[] {
    const result: Counts[] = [];
    for (let day = firstDay; day < endDay; day++) {
      const offset = day - this.spanStart;
      const inSpan = offset >= 0 && offset < this.span;
      const human = inSpan ? this.#siteViews[ClassCode.human * this.span + offset] : 0;
      const ai = inSpan ? this.#siteViews[ClassCode.ai * this.span + offset] : 0;
      result.push({ human, ai, total: human + ai });
    }
    return result;
  }

  /** Unique visitors of [firstDay, endDay) of one slot (a path's place in `pathIds`, or theirs for the site). */
  #slotCounts(slot: number, firstDay: number, endDay: number): Counts {
    const first = Math.max(firstDay - this.spanStart, 0);
    const end = Math.min(endDay - this.spanStart, this.span);
    const slots = this.pathIds.length + 1;
    const sum = (countClass: CountClass) => this.#cellsSum((countClass * slots + slot) * this.span, first, end);
    return { human: sum(CountClass.human), ai: sum(CountClass.ai), total: sum(CountClass.either) };
  }

  /** Site-wide unique visitors of [firstDay, endDay), without the per-path counts `rank` makes; `covers` must hold. */
  siteTotals(firstDay: number, endDay: number): Counts {
    return this.#slotCounts(this.pathIds.length, firstDay, endDay);
  }

  /** Unique visitors of [firstDay, endDay) of one path (all zero for a path the index has not seen); `covers` must hold. */
  pathTotals(pathId: number, firstDay: number, endDay: number): Counts {
    let low = 0;
    let high = this.pathIds.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.pathIds[middle] < pathId) low = middle + 1;
      else high = middle;
    }
    return this.pathIds[low] === pathId ? this.#slotCounts(low, firstDay, endDay) : { human: 0, ai: 0, total: 0 };
  }

  /**
   * Unique visitors of [firstDay, endDay) per path and site-wide; `covers` must hold. A (class, slot)'s cells
   * of consecutive days are consecutive, so each cell starts where the previous one ended.
   */
  rank(firstDay: number, endDay: number): Ranking {
    const slots = this.pathIds.length + 1;
    const sums = this.#sums(firstDay, endDay, countClasses);
    const count = (slot: number): Counts => ({
      human: sums[CountClass.human * slots + slot],
      ai: sums[CountClass.ai * slots + slot],
      total: sums[CountClass.either * slots + slot],
    });
    const rows: Ranking['rows'] = [];
    for (let slot = 0; slot < slots - 1; slot++) if (sums[CountClass.either * slots + slot] > 0) rows.push({ pathId: this.pathIds[slot], ...count(slot) });
    return { totals: count(slots - 1), rows };
  }

  /**
   * As `rank`, but each path counted in `total` only, which is all that orders the rows: a third of the cells.
   * A row's `human` and `ai` are -1 until `split` counts them (for the rows a page shows); the site-wide
   * totals are whole. `covers` must hold.
   */
  rankByTotal(firstDay: number, endDay: number): Ranking {
    const slots = this.pathIds.length + 1;
    const sums = this.#sums(firstDay, endDay, [CountClass.either]);
    const rows: Ranking['rows'] = [];
    for (let slot = 0; slot < slots - 1; slot++) {
      const total = sums[CountClass.either * slots + slot];
      if (total > 0) rows.push({ pathId: this.pathIds[slot], human: -1, ai: -1, total });
    }
    return { totals: this.siteTotals(firstDay, endDay), rows };
  }

  /**
   * Unique visitors of [firstDay, endDay) of one count class, per slot that has any and site-wide: `rank`'s
   * cells of that class alone, for an answer that shows one class. `covers` must hold.
   */
  rankClass(firstDay: number, endDay: number, countClass: CountClass): { site: number; rows: { pathId: number; visitors: number }[] } {
    const slots = this.pathIds.length + 1;
    const sums = this.#sums(firstDay, endDay, [countClass]);
    const rows: { pathId: number; visitors: number }[] = [];
    for (let slot = 0; slot < slots - 1; slot++) {
      const visitors = sums[countClass * slots + slot];
      if (visitors > 0) rows.push({ pathId: this.pathIds[slot], visitors });
    }
    return { site: sums[countClass * slots + slots - 1], rows };
  }

  /** Fills a row of `rankByTotal` of the same range with its human and AI visitors (once). */
  split(row: Ranking['rows'][number], firstDay: number, endDay: number): void {
    if (row.human >= 0) return;
    const counts = this.pathTotals(row.pathId, firstDay, endDay);
    row.human = counts.human;
    row.ai = counts.ai;
  }

  /** Per (count class, slot), the unique visitors of [firstDay, endDay), for the count classes in `wanted` (others 0). */
  #sums(firstDay: number, endDay: number, wanted: readonly CountClass[]): Uint32Array {
    const first = Math.max(firstDay - this.spanStart, 0);
    const end = Math.min(endDay - this.spanStart, this.span);
    const slots = this.pathIds.length + 1;
    const sums = new Uint32Array(countClasses.length * slots);
    for (const countClass of wanted)
      for (let slot = 0; slot < slots; slot++) sums[countClass * slots + slot] = this.#cellsSum((countClass * slots + slot) * this.span, first, end);
    return sums;
  }

  /**
   * Unique visitors of one (class, slot) over the span's days [first, end), its cells starting at `base`. The one loop
   * every count runs through: `rank` warms it up for the rows a page then splits into human and AI.
   */
  #cellsSum(base: number, first: number, end: number): number {
    const cellEnds = this.#cellEnds;
    const previous = this.#previous;
    const cumulative = this.#cumulative;
    let start = base + first === 0 ? 0 : cellEnds[base + first - 1];
    let sum = 0;
    for (let cell = base + first; cell < base + end; cell++) {
      const cellEnd = cellEnds[cell];
      sum += countedIn(previous, cumulative, start, cellEnd, first);
      start = cellEnd;
    }
    return sum;
  }
}

/**
 * Entries of the cell [start, end) whose previous day + 1 is at most `first`, from its ascending buckets. Most
 * cells are settled by their ends: none counts (every visitor was seen earlier in the range), or all do, or only
 * the first bucket (a range from the span's start counts only visitors new to the span).
 */
function countedIn(previous: Uint16Array, cumulative: Uint32Array, start: number, end: number, first: number): number {
  if (start === end || previous[start] > first) return 0;
  if (previous[end - 1] <= first) return cumulative[end - 1];
  if (previous[start + 1] > first) return cumulative[start];
  let low = start + 2;
  let high = end - 1;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (previous[middle] <= first) low = middle + 1;
    else high = middle;
  }
  return cumulative[low - 1];
}
