import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { groupEvidence, type EvidenceItem } from '../../src/docs/gaps/group.ts';

const fixture = JSON.parse(readFileSync('test/fixtures/gaps/temporal-queries.json', 'utf8')) as { source: string; groups: Record<string, string[]> };

const pairs = (count: number) => (count * (count - 1)) / 2;

/** Hubert and Arabie's adjusted Rand index of two labelings of the same items. */
function adjustedRandIndex(truth: string[], found: string[]): number {
  const cells = new Map<string, number>();
  const rows = new Map<string, number>();
  const columns = new Map<string, number>();
  truth.forEach((label, index) => {
    const cell = `${label}\u0000${found[index]}`;
    cells.set(cell, (cells.get(cell) ?? 0) + 1);
    rows.set(label, (rows.get(label) ?? 0) + 1);
    columns.set(found[index]!, (columns.get(found[index]!) ?? 0) + 1);
  });
  const index = [...cells.values()].reduce((sum, count) => sum + pairs(count), 0);
  const rowPairs = [...rows.values()].reduce((sum, count) => sum + pairs(count), 0);
  const columnPairs = [...columns.values()].reduce((sum, count) => sum + pairs(count), 0);
  const expected = (rowPairs * columnPairs) / pairs(truth.length);
  const maximum = (rowPairs + columnPairs) / 2;
  return (index - expected) / (maximum - expected);
}

const search = (text: string, visitor: number): EvidenceItem => ({
  source: 'searches',
  text,
  path: null,
  visitor,
  visitorClass: 'human',
  count: 1,
  first: 0,
  last: 0,
});

describe('grouping of failed queries', () => {
  const labeled = Object.entries(fixture.groups).flatMap(([group, queries]) => queries.map((query) => ({ group, query })));

  it('matches known groups of real-looking docs searches with an adjusted Rand index of at least 0.8', () => {
    expect(Object.keys(fixture.groups).length).toBeGreaterThanOrEqual(30);
    expect(labeled.length).toBeGreaterThanOrEqual(200);
    const items = labeled.map(({ query }, index) => search(query, index));
    const groups = groupEvidence(items);
    const gapOf = new Map<string, number>();
    groups.forEach((group, index) => {
      for (const key of group.keys) gapOf.set(key, index);
    });
    // Each query's gap: the group holding one of its own keys (every query forms or joins exactly one).
    const found = labeled.map(({ query }) => {
      const own = groupEvidence([search(query, 0)])[0]!.keys;
      return String(gapOf.get(own.find((key) => gapOf.has(key))!));
    });
    const score = adjustedRandIndex(
      labeled.map(({ group }) => group),
      found,
    );
    console.log(
      `Grouping: ${labeled.length} queries in ${Object.keys(fixture.groups).length} known groups -> ${groups.length} gaps; adjusted Rand index ${score.toFixed(3)} (source: ${fixture.source.slice(0, 120)}…)`,
    );
    expect(score).toBeGreaterThanOrEqual(0.8);
  });

  it('groups the same items the same way in any order', () => {
    const items = labeled.map(({ query }, index) => search(query, index));
    const titles = (list: EvidenceItem[]) =>
      groupEvidence(list)
        .map((group) => `${group.title}|${group.keys.join(',')}|${group.visitors.total}`)
        .sort();
    expect(titles([...items].reverse())).toEqual(titles(items));
  });

  it('puts near-duplicates of one question together and a different question apart', () => {
    const groups = groupEvidence(['rate limit', 'rate limits', 'ratelimit', 'what are the rate limits', 'Rate-Limits?', 'webhook retries'].map(search));
    expect(groups.map((group) => group.visitors.total).sort()).toEqual([1, 5]);
  });
});
