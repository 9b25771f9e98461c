import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { decodeDaySet, encodeDaySet, encodeDecodedDaySet, sortedDistinct, type PathEntry } from '../../src/analytics/model/day-set.ts';
import { DayEntries } from '../../src/analytics/query/value-pages-build.ts';

interface Entry {
  property: number;
  valueKey: number;
  classCode: number;
  pathId: number;
  visitor: number;
}

/** Each group's pages as a map of paths, the way the pages were computed before typed arrays: the reference. */
function expectedPages(entries: Entry[]) {
  const groups = new Map<string, Map<number, { visitors: number[]; views: number }>>();
  for (const { property, valueKey, classCode, pathId, visitor } of entries) {
    const key = `${property}:${valueKey}:${classCode}`;
    if (!groups.has(key)) groups.set(key, new Map());
    const pages = groups.get(key)!;
    if (!pages.has(pathId)) pages.set(pathId, { visitors: [], views: 0 });
    pages.get(pathId)!.visitors.push(visitor);
    pages.get(pathId)!.views++;
  }
  return [...groups].map(([key, pages]) => {
    const map = new Map<number, PathEntry>();
    for (const [pathId, page] of pages) map.set(pathId, { visitors: sortedDistinct(page.visitors), views: page.views });
    return { key, encoded: encodeDaySet(map) };
  });
}

function computed(entries: Entry[]) {
  const day = new DayEntries();
  for (const entry of entries) day.add(entry.property, entry.valueKey, entry.classCode, entry.pathId, entry.visitor);
  const sets = day.daySets();
  return day.groups.map((group, index) => ({ key: `${group.property}:${group.valueKey}:${group.classCode}`, set: sets[index] }));
}

const entryArbitrary = (maxPath: number, maxVisitor: number) =>
  fc.record({
    property: fc.integer({ min: 0, max: 1 }),
    valueKey: fc.integer({ min: 0, max: 3 }),
    classCode: fc.integer({ min: 0, max: 1 }),
    pathId: fc.integer({ min: maxPath - 5, max: maxPath }),
    visitor: fc.integer({ min: maxVisitor - 8, max: maxVisitor }),
  });

describe("a day's value pages from its raw events (DayEntries)", () => {
  // Small ids pack a path and a visitor into one number; ids whose product passes 2⁵³ take the comparator instead.
  for (const [name, maxPath, maxVisitor] of [
    ['dense ids', 8, 20],
    ['ids too large to pack', 4_000_000_000, 4_000_000_000],
  ] as const)
    it(`gives each group's pages, views counted and visitors distinct, in first-seen group order (${name})`, () => {
      fc.assert(
        fc.property(fc.array(entryArbitrary(maxPath, maxVisitor), { minLength: 1, maxLength: 120 }), (entries) => {
          const expected = expectedPages(entries);
          const answer = computed(entries);
          expect(answer.map((group) => group.key)).toEqual(expected.map((group) => group.key));
          answer.forEach((group, index) => {
            expect(encodeDecodedDaySet(group.set)).toEqual(expected[index].encoded);
            expect(group.set).toEqual(decodeDaySet(expected[index].encoded));
          });
        }),
        { numRuns: 200 },
      );
    });
});
