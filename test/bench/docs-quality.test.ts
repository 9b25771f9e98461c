import { describe, expect, it } from 'vitest';
import { multiplyPages, normalise, pageBody, qualityCorpus } from '../../bench/docs-corpus.ts';
import { evaluateSearch, scoreResults } from '../../bench/docs-quality.ts';

describe('the docs search-quality corpus', () => {
  const { pages, queries } = qualityCorpus();

  it('reads every vendored page, with keywords and tags gone from the indexed copy', () => {
    expect(pages).toHaveLength(419);
    const schedule = pages.find((page) => page.path === 'docs/cli/schedule.mdx');
    expect(schedule?.title).toBe('Temporal CLI schedule command reference');
    expect(schedule?.markdown).toMatch(/^---\nid: schedule\ntitle: Temporal CLI schedule command reference\n/);
    expect(schedule?.markdown).toContain('description: ');
    for (const page of pages) expect(page.markdown).not.toMatch(/^(keywords|tags):/m);
  });

  it('makes queries of the authors’ keywords, leaving out title repeats and genre tags', () => {
    const byQuery = new Map(queries.map((query) => [query.query, query.relevant]));
    expect(byQuery.get('activerecord')).toEqual(['docs/develop/ruby/rails-integration.mdx']);
    expect(byQuery.get('schedule backfill')).toEqual(['docs/cli/cmd-options.mdx', 'docs/cli/schedule.mdx']);
    expect(byQuery.has('explanation')).toBe(false);
    expect(queries.length).toBeGreaterThan(1000);
    for (const query of queries) {
      expect(query.relevant.length).toBeGreaterThan(0);
      expect(query.relevant.length).toBeLessThanOrEqual(10);
      for (const path of query.relevant) expect(normalise(pages.find((page) => page.path === path)!.title)).not.toBe(query.query);
    }
    expect(normalise('  Command-Line-Interface-CLI,\n')).toBe('command-line-interface-cli');
  });

  it('multiplies pages into distinct paths and titles that the Markdown carries too', () => {
    const many = multiplyPages(pages, 1000);
    expect(new Set(many.map((page) => page.path)).size).toBe(1000);
    expect(new Set(many.map((page) => page.title)).size).toBeGreaterThan(990);
    const copy = many[pages.length];
    expect(copy.path).toBe(`copy-1/${pages[0].path}`);
    expect(copy.markdown).toContain(`title: ${copy.title}`);
    expect(pageBody(copy.markdown)).toBe(pageBody(pages[0].markdown));
  });
});

describe('search quality', () => {
  it('counts relevant pages in the first five and the rank of the first within ten', () => {
    expect(scoreResults(['a', 'x', 'b'], ['a', 'b'])).toEqual([1, 1]);
    expect(scoreResults(['x', 'y', 'a'], ['a', 'b', 'c', 'd', 'e', 'f', 'g'])).toEqual([1 / 5, 1 / 3]);
    expect(scoreResults(['1', '2', '3', '4', '5', 'a'], ['a'])).toEqual([0, 1 / 6]);
    expect(scoreResults([], ['a'])).toEqual([0, 0]);
  });

  it('averages over the queries a search is given', async () => {
    const queries = [
      { query: 'found', relevant: ['a'] },
      { query: 'missed', relevant: ['b'] },
    ];
    const quality = await evaluateSearch('fixed', async (query) => (query === 'found' ? ['a'] : ['c']), queries);
    expect(quality).toEqual({ name: 'fixed', recallAt5: 0.5, mrr: 0.5, queries: 2 });
  });
});
