import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { classCodes, countClasses, CountClass, type ClassCode } from '../model/class-codes.ts';
import { RangeIndex } from './range-index.ts';
import type { IndexedDay } from './types.ts';

/** A typed array that doubles when full (the bucket count is known only at the end). */
class Growing<T extends Uint16Array | Uint32Array> {
  array: T;
  length = 0;
  readonly #create: (size: number) => T;

  constructor(create: (size: number) => T) {
    this.#create = create;
    this.array = create(1 << 16);
  }

  push(value: number): void {
    if (this.length === this.array.length) {
      const grown = this.#create(this.array.length * 2);
      grown.set(this.array);
      this.array = grown;
    }
    this.array[this.length++] = value;
  }

  finish(): T {
    return this.array.slice(0, this.length) as T;
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
  // Where each path occurs: (day set, position) pairs per slot, in day order.
  const occurrences: [number, number][][] = Array.from({ length: pathIds.length }, () => []);
  sorted.forEach(({ set }, setNumber) => set.paths.forEach((pathId, position) => occurrences[slotOf.get(pathId)!].push([setNumber, position])));

  const slots = pathIds.length + 1;
  const cellEnds = new Uint32Array(countClasses.length * slots * span);
  const previous = new Growing((size) => new Uint16Array(size));
  const cumulative = new Growing((size) => new Uint32Array(size));
  const last = new Uint32Array(maxVisitor + 1);
  const histogram = new Uint32Array(span + 1);
  const touched: number[] = [];
  const stride = span + 1;
  let pass = 0;
  let base = 0;
  let cell = 0;
  let day = 0;

  const closeDaysBefore = (until: number) => {
    for (; day < until; day++) {
      touched.sort((a, b) => a - b);
      let running = 0;
      for (const value of touched) {
        running += histogram[value];
        histogram[value] = 0;
        previous.push(value);
        cumulative.push(running);
      }
      touched.length = 0;
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
      if (histogram[seen]++ === 0) touched.push(seen);
    }
  };

  for (const countClass of countClasses) {
    for (let slot = 0; slot < slots - 1; slot++) {
      startPass();
      for (const [setNumber, position] of occurrences[slot]) {
        const { day: setDay, classCode, set } = sorted[setNumber];
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
