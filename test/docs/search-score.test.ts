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

/** How many of the query's words the scoring found in each text (the rank being equal, score × words). */
const found = (query: string, ...texts: string[]) => {
  const terms = searchTerms(query)!;
  return scoreCandidates(
    terms,
    texts.map((text) => candidate(text)),
  ).map((scored) => Math.round(scored.score * terms.distinct.length));
};

describe('counting the query’s words in a candidate section', () => {
  it('finds a word where a word of the text begins with its stem, in any case, in the title, heading or text', () => {
    expect(found('configuring webhooks', 'Configuration of WEBHOOKS.', 'reconfiguring webhooks', 'nothing here')).toEqual([2, 1, 1]);
    expect(scoreCandidates(searchTerms('retry policy')!, [candidate('nothing', 'Retry', 'Policy')]).map((scored) => scored.score)).toEqual([1]);
  });

  it('takes a letter outside the Basic Multilingual Plane before the stem as part of the word, punctuation as a boundary', () => {
    expect(found('workflow activity', '𝒜workflow, (activity)')).toEqual([1]);
    expect(found('workflow activity', '𝒜-workflow, (activity)')).toEqual([2]);
    expect(found('naïve café', 'A NAÏVE cafés list')).toEqual([2]);
  });

  it('takes the count of an engine that matched the words itself, with no text to search, and at least 1', () => {
    const counted = (found: number) => ({ ...candidate('', 'Retry'), text: undefined, found });
    const scores = scoreCandidates(searchTerms('retry policy backoff')!, [counted(3), counted(2), counted(0)]);
    expect(scores.map((scored) => Math.round(scored.score * 3))).toEqual([3, 2, 1]);
  });
});
