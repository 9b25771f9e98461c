import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { encodeDaySet, decodeDaySet, sortedDistinct, type PathEntry } from '../../src/analytics/model/day-set.ts';
import { groupViews } from '../../src/analytics/fold/fold.ts';
import { buildRangeIndex, sortPrefix } from '../../src/analytics/query/range-index-build.ts';
import type { IndexedDay } from '../../src/analytics/query/types.ts';
import { rank } from '../../src/analytics/query/exact-counts.ts';
import { classCodes } from '../../src/analytics/model/class-codes.ts';
import type { CountedView } from '../../src/analytics/model/pending-batch.ts';

const spanStart = 20_000;
const span = 12;

const tupleArbitrary = fc.record({
  day: fc.integer({ min: spanStart, max: spanStart + span - 1 }),
  pathId: fc.integer({ min: 1, max: 6 }),
  classCode: fc.constantFrom(...classCodes),
  visitor: fc.integer({ min: 1, max: 40 }),
});

/** Day sets as the indexer stores them, from counted views. */
function daySets(views: CountedView[]): IndexedDay[] {
  return [...groupViews(views).values()].map(({ day, classCode, paths }) => {
    const entries = new Map<number, PathEntry>();
    for (const [pathId, path] of paths) entries.set(pathId, { visitors: sortedDistinct(path.visitors), views: path.views });
    return { day, classCode, revision: 1, set: decodeDaySet(encodeDaySet(entries)) };
  });
}

const byPath = (ranking: ReturnType<typeof rank>) => ({ totals: ranking.totals, rows: [...ranking.rows].sort((a, b) => a.pathId - b.pathId) });

describe('range index', () => {
  it('counts every whole-day range exactly as the union of its day sets', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(tupleArbitrary, { maxLength: 300 }),
        fc.integer({ min: -2, max: span + 2 }),
        fc.integer({ min: 1, max: span + 4 }),
        async (tuples, offset, length) => {
          const days = daySets(tuples);
          const index = await buildRangeIndex(days, spanStart, span);
          const [firstDay, endDay] = [spanStart + offset, spanStart + offset + length];
          const inRange = days.filter((entry) => entry.day >= firstDay && entry.day < endDay);
          const revisions = new Map(inRange.map((entry) => [`${entry.day}:${entry.classCode}`, entry.revision]));
          expect(index.covers(firstDay, endDay, revisions)).toBe(true);
          const expected = rank({ days: inRange, loose: [] }, 'visitors');
          expect(byPath(index.rank(firstDay, endDay))).toEqual(byPath(expected));
          // Ranked by totals alone, then each row split into its classes, as a page shows it.
          const byTotal = index.rankByTotal(firstDay, endDay);
          expect(byTotal.rows.every((row) => row.human === -1 && row.ai === -1)).toBe(true);
          for (const row of byTotal.rows) index.split(row, firstDay, endDay);
          expect(byPath(byTotal)).toEqual(byPath(expected));
          expect(index.siteTotals(firstDay, endDay)).toEqual(expected.totals);
          for (const row of expected.rows) expect(index.pathTotals(row.pathId, firstDay, endDay)).toEqual({ human: row.human, ai: row.ai, total: row.total });
          expect(index.pathTotals(1_000_000, firstDay, endDay)).toEqual({ human: 0, ai: 0, total: 0 });
        },
      ),
      { numRuns: 300 },
    );
  });

  it('counts exactly when a day’s visitors were last seen on many different days (a long span)', async () => {
    // On the last of 60 days, 59 visitors were each last seen on another day: 59 distinct previous days in one cell,
    // met in an order other than theirs (visitor ids are a permutation of the days, so the walk does not sort them).
    const longSpan = 60;
    const tuples = Array.from({ length: longSpan - 1 }, (_, day) => {
      const visitor = ((day * 37) % (longSpan - 1)) + 1;
      return [
        { day: spanStart + day, pathId: 1, classCode: classCodes[0], visitor },
        { day: spanStart + longSpan - 1, pathId: 1, classCode: classCodes[0], visitor },
      ];
    }).flat();
    const days = daySets(tuples);
    const index = await buildRangeIndex(days, spanStart, longSpan);
    for (const firstDay of [spanStart, spanStart + 20, spanStart + longSpan - 1]) {
      const inRange = days.filter((entry) => entry.day >= firstDay);
      expect(byPath(index.rank(firstDay, spanStart + longSpan))).toEqual(byPath(rank({ days: inRange, loose: [] }, 'visitors')));
    }
  });

  it('sorts a cell’s values in place, short cells and long ones', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 400 }), { maxLength: 120, size: 'max' }), fc.nat(10), (values, extra) => {
        const array = Uint32Array.from([...values, ...Array.from({ length: extra }, () => 999)]);
        sortPrefix(array, values.length);
        expect([...array.subarray(0, values.length)]).toEqual([...values].sort((a, b) => a - b));
        expect([...array.subarray(values.length)]).toEqual(Array.from({ length: extra }, () => 999));
      }),
    );
  });

  it('refuses a range whose day sets changed since it was built', async () => {
    const days = daySets([
      { day: spanStart, pathId: 1, classCode: 0, visitor: 1 },
      { day: spanStart + 1, pathId: 1, classCode: 1, visitor: 2 },
    ]);
    const index = await buildRangeIndex(days, spanStart, span);
    expect(
      index.covers(
        spanStart,
        spanStart + 2,
        new Map([
          [`${spanStart}:0`, 1],
          [`${spanStart + 1}:1`, 1],
        ]),
      ),
    ).toBe(true);
    expect(
      index.covers(
        spanStart,
        spanStart + 2,
        new Map([
          [`${spanStart}:0`, 1],
          [`${spanStart + 1}:1`, 2],
        ]),
      ),
    ).toBe(false);
    expect(
      index.covers(
        spanStart,
        spanStart + 3,
        new Map([
          [`${spanStart}:0`, 1],
          [`${spanStart + 1}:1`, 1],
          [`${spanStart + 2}:0`, 1],
        ]),
      ),
    ).toBe(false);
    expect(index.covers(spanStart, spanStart + 2, new Map([[`${spanStart}:0`, 1]]))).toBe(false);
  });
});
