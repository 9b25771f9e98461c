import { describe, expect, it } from 'vitest';
import type { Candidate } from '../../src/docs/search/engines/engine.ts';
import { scoreCandidates } from '../../src/docs/search/score.ts';
import { searchTerms } from '../../src/docs/search/terms.ts';

const candidate = (text: string, title = '', heading = ''): Candidate => ({
  path: 'page.md',
  route: '/page',
  title,
  group: '',
  position: 0,
  ordinal: 0,
  anchor: '',
  heading,
  id: 1,
  text,
  rank: 1,
});

/** How many of the query's words the scoring found in each text. */
const found = (query: string, ...texts: string[]) =>
  scoreCandidates(
    searchTerms(query)!,
    texts.map((text) => candidate(text)),
  ).map((scored) => scored.found);

describe('counting the query’s words in a candidate section', () => {
  it('finds a word where a word of the text begins with its stem, in any case, in the title, heading or text', () => {
    expect(found('configuring webhooks', 'Configuration of WEBHOOKS.', 'reconfiguring webhooks', 'nothing here')).toEqual([2, 1, 1]);
    expect(scoreCandidates(searchTerms('retry policy')!, [candidate('nothing', 'Retry', 'Policy')]).map((scored) => scored.found)).toEqual([2]);
  });

  it('takes a letter outside the Basic Multilingual Plane before the stem as part of the word, punctuation as a boundary', () => {
    expect(found('workflow activity', '𝒜workflow, (activity)')).toEqual([1]);
    expect(found('workflow activity', '𝒜-workflow, (activity)')).toEqual([2]);
    expect(found('naïve café', 'A NAÏVE cafés list')).toEqual([2]);
  });

  it('takes the count of an engine that matched the words itself, with no text to search, and at least 1', () => {
    const counted = (found: number) => ({ ...candidate('', 'Retry'), text: undefined, found });
    const scores = scoreCandidates(searchTerms('retry policy backoff')!, [counted(3), counted(2), counted(0)]);
    expect(scores.map((scored) => scored.found)).toEqual([3, 2, 1]);
  });
});

describe('scoring a candidate section', () => {
  const terms = searchTerms('retry policy')!;
  const scores = (...candidates: Candidate[]) => scoreCandidates(terms, candidates).map((scored) => scored.score);

  it('gives 1 to the best ranked first section of a page named after the query that holds every word, less to any other', () => {
    const [best, ...others] = scores(
      candidate('a retry policy', 'Retry policy'),
      { ...candidate('a retry policy', 'Retry policy'), rank: 0.5 },
      { ...candidate('a retry policy', 'Retry policy'), ordinal: 1 },
      candidate('a retry policy', 'Timeouts'),
      candidate('a retry', 'Retries'),
    );
    expect(best).toBe(1);
    for (const other of others) expect(other).toBeLessThan(1);
  });

  it('ranks a section of a page titled with the query above a better ranked section of another page', () => {
    const [titled, ranked] = scores({ ...candidate('a retry policy', 'Retry policies'), rank: 0.6 }, candidate('retry policy, retry policy', 'Activities'));
    expect(titled).toBeGreaterThan(ranked!);
  });

  it('weighs the words a section holds with its rank rather than above it: a far better rank outweighs one word fewer', () => {
    const [fewer, more] = scores(candidate('retry retry retry'), { ...candidate('retry policy'), rank: 0.1 });
    expect(fewer).toBeGreaterThan(more!);
  });

  it('prefers a page’s first sections, all else equal, and stays within 0..1', () => {
    const ordinals = [0, 1, 2, 4, 5, 9];
    const scored = scores(...ordinals.map((ordinal) => ({ ...candidate('nothing'), ordinal })));
    expect(scored).toEqual([...scored].sort((a, b) => b - a));
    expect(scored[4]).toBe(scored[5]);
    for (const score of scored) expect(score).toBeGreaterThan(0);
  });
});
