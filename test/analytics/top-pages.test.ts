import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { encodeDaySet, decodeDaySet, sortedDistinct, type PathEntry } from '../../src/analytics/model/day-set.ts';
import { groupViews } from '../../src/analytics/fold/fold.ts';
import { order, rank } from '../../src/analytics/query/exact-counts.ts';
import { topVisitors } from '../../src/analytics/query/top-pages.ts';
import { classCodes } from '../../src/analytics/model/class-codes.ts';
import type { CountedView } from '../../src/analytics/model/pending-batch.ts';

const view = fc.record({
  day: fc.integer({ min: 20_000, max: 20_006 }),
  // Skewed pages, so bounds and counts tie and cross: most views on the first ones.
  pathId: fc.oneof(fc.integer({ min: 1, max: 3 }), fc.integer({ min: 1, max: 12 })),
  classCode: fc.constantFrom(...classCodes),
  visitor: fc.integer({ min: 1, max: 30 }),
});

/** Sources as a query reads them: some views folded into day sets, the rest loose. */
function sources(views: CountedView[], folded: number) {
  const days = [...groupViews(views.slice(0, folded)).values()].map(({ day, classCode, paths }) => {
    const entries = new Map<number, PathEntry>();
    for (const [pathId, path] of paths) entries.set(pathId, { visitors: sortedDistinct(path.visitors), views: path.views });
    return { day, classCode, revision: 1, set: decodeDaySet(encodeDaySet(entries)) };
  });
  return { days, loose: views.slice(folded) };
}

describe('top pages', () => {
  it('gives the first rows of the full visitors ranking, and how many rows it has', () => {
    fc.assert(
      fc.property(fc.array(view, { maxLength: 200 }), fc.nat(), fc.integer({ min: 1, max: 14 }), (views, cut, wanted) => {
        const read = sources(views, views.length === 0 ? 0 : cut % (views.length + 1));
        // Names out of id order, so ties are broken by name, not by id.
        const names = new Map(Array.from({ length: 13 }, (_, pathId) => [pathId, `/page-${(pathId * 7) % 13}`]));
        const full = order(rank(read, 'visitors'), names).rows;
        const top = topVisitors(read, wanted, names);
        expect(top.count).toBe(full.length);
        expect(top.exact).toBe(Math.min(wanted, full.length));
        expect(top.rows.slice(0, top.exact)).toEqual(full.slice(0, top.exact));
      }),
      { numRuns: 500 },
    );
  });
});
