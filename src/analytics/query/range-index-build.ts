import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { classCodes, countClasses, CountClass, type ClassCode } from '../model/class-codes.ts';
import { GrowingArray } from '../../lib/growing-array.ts';
import { RangeIndex } from './range-index.ts';
import type { IndexedDay } from './types.ts';

/** Below this many values a cell's are sorted by insertion; above, by the typed array's own sort. */
const insertionSortBelow = 32;

/**
 * Sorts `values[0..count)` in place. A cell holds at most a span's worth of distinct values (up to 400 days), most
 * often a few: those are sorted by insertion, as `subarray(…).sort()` allocated a view per cell (hundreds of MiB of
 * garbage over the indexes built after a load); a long cell takes the typed array's sort, as insertion is quadratic.
 */
export function sortPrefix(values: Uint32Array, count: number): void {
  if (count >= insertionSortBelow) {
    values.subarray(0, count).sort();
    return;
  }
  for (let index = 1; index < count; index++) {
    const value = values[index];
    let at = index - 1;
    for (; at >= 0 && values[at] > value; at--) values[at + 1] = values[at];
    values[at + 1] = value;
  }
}

/** Visitor entries walked between yields to the event loop: a few milliseconds of work. */
const entriesPerPause = 500_000;

/** Which stored lists a count class walks: its own class, or both for `either`. */
const wants = (countClass: CountClass, classCode: ClassCode) => countClass === CountClass.either || countClass === classCode;

/**
 * Builds the index of `days` (all inside [spanStart, spanStart + span)). One pass per (class, path)
 * and per class site-wide, each linear in the entries walked: `last[visitor]` holds the pass number
 * and the last day the visitor was seen in this pass, so nothing is cleared between passes. Yields
 * to the event loop between passes, so requests keep being served while it runs.
 */
export async function buildRangeIndex(days: IndexedDay[], spanStart: number, span: number): Promise<RangeIndex> {
  const sorted = [...days].sort((a, b) => a.day - b.day || a.classCode - b.classCode);
  const pathSet = new Set<number>();
  let maxVisitor = 0;
  for (const { set } of sorted) {
    for (let index = 0; index < set.paths.length; index++) {
      pathSet.add(set.paths[index]);
      if (set.starts[index + 1] > set.starts[index]) maxVisitor = Math.max(maxVisitor, set.visitors[set.starts[index + 1] - 1]);
    }
  }
  const pathIds = Uint32Array.from([...pathSet].sort((a, b) => a - b));
  const slotOf = new Map<number, number>();
  pathIds.forEach((pathId, slot) => slotOf.set(pathId, slot));
  // Where each path occurs, in day order: slot `s` owns the (day set, position) pairs
  // [occurrenceStarts[s], occurrenceStarts[s + 1]) of `occurrenceSet` and `occurrencePosition`. Typed arrays
  // rather than a pair per occurrence: the build runs on the serving thread, and its garbage grows that heap.
  const occurrenceStarts = new Uint32Array(pathIds.length + 1);
  for (const { set } of sorted) for (const pathId of set.paths) occurrenceStarts[slotOf.get(pathId)! + 1]++;
  for (let slot = 0; slot < pathIds.length; slot++) occurrenceStarts[slot + 1] += occurrenceStarts[slot];
  const occurrenceSet = new Uint32Array(occurrenceStarts[pathIds.length]);
  const occurrencePosition = new Uint32Array(occurrenceStarts[pathIds.length]);
  const filled = occurrenceStarts.slice(0, pathIds.length);
  sorted.forEach(({ set }, setNumber) =>
    set.paths.forEach((pathId, position) => {
      const at = filled[slotOf.get(pathId)!]++;
      occurrenceSet[at] = setNumber;
      occurrencePosition[at] = position;
    }),
  );

  const slots = pathIds.length + 1;
  const cellEnds = new Uint32Array(countClasses.length * slots * span);
  const previous = new GrowingArray((size) => new Uint16Array(size));
  const cumulative = new GrowingArray((size) => new Uint32Array(size));
  const last = new Uint32Array(maxVisitor + 1);
  const histogram = new Uint32Array(span + 1);
  // The distinct previous-day values seen in the current cell (each below `stride`).
  const touched = new Uint32Array(span + 1);
  let touchedCount = 0;
  const stride = span + 1;
  let pass = 0;
  let base = 0;
  let cell = 0;
  let day = 0;

  const closeDaysBefore = (until: number) => {
    for (; day < until; day++) {
      sortPrefix(touched, touchedCount);
      let running = 0;
      for (let index = 0; index < touchedCount; index++) {
        const value = touched[index];
        running += histogram[value];
        histogram[value] = 0;
        previous.push(value);
        cumulative.push(running);
      }
      touchedCount = 0;
      cellEnds[cell++] = previous.length;
    }
  };
  const startPass = () => {
    if ((pass + 2) * stride >= 2 ** 32) {
      last.fill(0);
      pass = 0;
    }
    base = ++pass * stride;
    day = 0;
  };
  let walked = 0;
  const pause = async () => {
    if (walked < entriesPerPause) return;
    walked = 0;
    await yieldToEventLoop();
  };
  const walk = (visitors: Uint32Array, from: number, to: number, offset: number) => {
    const stamp = base + offset + 1;
    walked += to - from;
    for (let index = from; index < to; index++) {
      const visitor = visitors[index];
      const mark = last[visitor];
      if (mark === stamp) continue;
      const seen = mark > base ? mark - base : 0;
      last[visitor] = stamp;
      if (histogram[seen]++ === 0) touched[touchedCount++] = seen;
    }
  };

  for (const countClass of countClasses) {
    for (let slot = 0; slot < slots - 1; slot++) {
      startPass();
      for (let at = occurrenceStarts[slot]; at < occurrenceStarts[slot + 1]; at++) {
        const position = occurrencePosition[at];
        const { day: setDay, classCode, set } = sorted[occurrenceSet[at]];
        if (!wants(countClass, classCode)) continue;
        closeDaysBefore(setDay - spanStart);
        walk(set.visitors, set.starts[position], set.starts[position + 1], setDay - spanStart);
      }
      closeDaysBefore(span);
      await pause();
    }
    startPass();
    for (const { day: setDay, classCode, set } of sorted) {
      if (!wants(countClass, classCode)) continue;
      closeDaysBefore(setDay - spanStart);
      walk(set.visitors, 0, set.visitors.length, setDay - spanStart);
      await pause();
    }
    closeDaysBefore(span);
    await pause();
  }
  const revisions = new Map(sorted.map((entry) => [`${entry.day}:${entry.classCode}`, entry.revision]));
  const siteViews = new Float64Array(classCodes.length * span);
  for (const { day: setDay, classCode, set } of sorted) for (const views of set.views) siteViews[classCode * span + setDay - spanStart] += views;
  return new RangeIndex(spanStart, span, pathIds, revisions, cellEnds, previous.finish(), cumulative.finish(), siteViews);
}
