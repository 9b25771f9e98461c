import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { qualityCorpus } from '../../bench/docs-corpus.ts';
import { indexCorpusPages } from '../../bench/docs-quire-index.ts';
import { beginBuild } from '../../src/docs/index/begin.ts';
import { finishBuild } from '../../src/docs/index/finish.ts';
import { visibleAt } from '../../src/docs/index/visible.ts';
import { writePages } from '../../src/docs/index/write.ts';
import type { FullTextIndex, MatchRequest } from '../../src/docs/search/engines/engine.ts';
import { matchByStatement, postgresFullText } from '../../src/docs/search/engines/postgres.ts';
import { matchByStatement as sqliteStatement, sqliteFullText } from '../../src/docs/search/engines/sqlite.ts';
import { anyWordFromPhraseRanks } from '../../src/docs/search/engines/sqlite-term-ranks.ts';
import { anyWordFromTermRanks } from '../../src/docs/search/engines/postgres-term-ranks.ts';
import { projectToken } from '../../src/docs/search/engines/project-token.ts';
import { searchDocs } from '../../src/docs/search/search.ts';
import { searchTerms } from '../../src/docs/search/terms.ts';
import type { Storage } from '../../src/storage/dialect.ts';
import { testDatabases } from '../support/storage.ts';

const { pages, queries } = qualityCorpus();
/** Queries of two words or more, spread over the corpus's list. */
const asked = queries.filter((query) => (searchTerms(query.query)?.distinct.length ?? 0) > 1).filter((_, index) => index % 7 === 0);

/** A fresh database of `database`'s kind with 160 real pages as the docs of `projectId`, for the describe block it is called in. */
function indexedCorpus(database: (typeof testDatabases)[number], projectId: string) {
  let storage: Storage | undefined;
  beforeAll(async () => {
    storage = await database.open();
    await indexCorpusPages(storage, projectId, pages.slice(0, 160));
  }, 120_000);
  afterAll(async () => {
    await storage?.close();
  });
  return { storage: () => storage! };
}

/**
 * The any-word request the search would make of `query` on the project's current build, without the phrase;
 * with `rarest`, the rarer half of the words (at least one) required, the others then only adding to the rank.
 */
async function anyWordRequest(storage: Storage, engine: FullTextIndex, projectId: string, query: string, rarest: boolean): Promise<MatchRequest> {
  const terms = searchTerms(query)!;
  const state = await storage.db.selectFrom('docs_state').select(['generation', 'built_at']).where('project_id', '=', projectId).executeTakeFirstOrThrow();
  let within: string[] | null = null;
  if (rarest) {
    const counts = await engine.frequencies(storage.db, storage, projectId, terms.distinct, terms.prefix);
    const byRarity = terms.distinct.map((word, index) => ({ word, count: counts[index] })).sort((a, b) => a.count - b.count);
    within = byRarity.slice(0, Math.max(1, Math.floor(byRarity.length / 2))).map((entry) => entry.word);
  }
  return {
    projectId,
    words: terms.distinct,
    prefix: terms.prefix,
    phrase: null,
    every: false,
    headingsOnly: false,
    oneInHeadings: false,
    within,
    visible: visibleAt('s', state.generation),
    index: { owner: storage, generation: state.generation, builtAt: Number(state.built_at) },
    groups: null,
    limit: 100,
    counts: null,
  };
}

/**
 * A handle on `storage`'s database that records each statement it sends, as the JSON of its query tree: that holds
 * every fragment of the statement's SQL, nested ones (sql.join's) included.
 */
function recordingHandle(storage: Storage) {
  const sent: string[] = [];
  const handle = storage.db.withPlugin({
    transformQuery: ({ node }) => {
      sent.push(JSON.stringify(node));
      return node;
    },
    transformResult: async ({ result }) => result,
  });
  return { handle, sent };
}

const postgres = testDatabases.filter((database) => database.dialect === 'postgres');
const language = sql.lit('docs_english');
const weights = sql`'{0, 0.1, 0.5, 1.0}'::float4[]`;

/**
 * The any-word match from ranks kept per term (postgres-term-ranks.ts) must rank as PostgreSQL's own
 * ts_rank() of the whole OR query does: the same sections in the same order, the same counts of words
 * found, ranks equal to float precision. Checked over real docs (the Temporal pages of the quality corpus)
 * and the corpus's own queries, with and without the rarer words required.
 */
describe.skipIf(postgres.length === 0).each(postgres)('the any-word match from kept term ranks on $dialect', (database) => {
  const projectId = 'prj_term_ranks';
  const indexed = indexedCorpus(database, projectId);
  let storage: Storage;
  beforeAll(() => {
    storage = indexed.storage();
  });

  const requestFor = (query: string, within: 'none' | 'rarest') => anyWordRequest(storage, postgresFullText, projectId, query, within === 'rarest');

  const plain = (candidates: { id: unknown; found?: number; rank: number }[]) =>
    candidates.map((candidate) => ({ id: Number(candidate.id), found: candidate.found, rank: Number(candidate.rank) }));

  /**
   * The same ranks at every place, to float4 precision, and the same sections with the same words found
   * wherever no two ranks are within that precision: ts_rank() sums in single precision from values this
   * path only sees rounded, so two sections whose ranks differ by a unit in the last place may swap.
   */
  function expectSameRanking(kept: ReturnType<typeof plain>, statement: ReturnType<typeof plain>, query: string) {
    expect(kept.length, query).toBe(statement.length);
    let same = 0;
    kept.forEach((entry, index) => {
      const expected = statement[index];
      expect(Math.abs(entry.rank - expected.rank), `${query}: place ${index}`).toBeLessThanOrEqual(1e-6 * Math.max(1, expected.rank));
      if (entry.id !== expected.id) return;
      same++;
      expect(entry.found, `${query}: section ${entry.id}`).toBe(expected.found);
    });
    return same;
  }

  /** Every asked query both ways: the same ranking, and the same section at more than 99% of places. */
  async function expectSameOverQueries(within: 'none' | 'rarest') {
    let places = 0;
    let same = 0;
    for (const query of asked) {
      const request = await requestFor(query.query, within);
      const kept = await anyWordFromTermRanks(storage.db, request, language, weights);
      expect(kept, query.query).not.toBeNull();
      places += kept!.length;
      same += expectSameRanking(plain(kept!), plain(await matchByStatement(storage.db, request)), query.query);
    }
    expect(places).toBeGreaterThan(1000);
    expect(same / places).toBeGreaterThan(0.99);
  }

  it('ranks every word of real queries as ts_rank() of the OR query does', async () => {
    expect(asked.length).toBeGreaterThan(100);
    await expectSameOverQueries('none');
  });

  it('ranks the sections of the rarer words by every word, reading the common words’ ranks only there', async () => {
    await expectSameOverQueries('rarest');
  });

  it('answers from kept ranks again without ranking any section, and leaves a group filter to the statement', async () => {
    // Kept under an owner of its own, so the first call starts with nothing kept whatever the tests before it asked.
    const cold = await requestFor('workflow execution history replay', 'rarest');
    const request = { ...cold, index: { ...cold.index, owner: {} } };
    const { handle: counted, sent } = recordingHandle(storage);
    const first = await anyWordFromTermRanks(counted, request, language, weights);
    expect(sent.filter((text) => text.includes('ts_rank')).length).toBeGreaterThan(0);
    sent.length = 0;
    const again = await anyWordFromTermRanks(counted, request, language, weights);
    expect(plain(again!)).toEqual(plain(first!));
    // The ranks, the words' terms and the sections' fields are all kept: nothing is read.
    expect(sent).toEqual([]);
    // A word the search counted in no section is not matched on its own: only its term is read.
    const counts = new Map([
      ['qwzx', 0],
      ['workflow', 50],
    ]);
    const none = await anyWordFromTermRanks(counted, { ...(await requestFor('workflow qwzx', 'none')), within: ['qwzx'], counts }, language, weights);
    expect(none).toEqual([]);
    expect(sent.filter((text) => text.includes('ts_rank'))).toEqual([]);
    expect(await anyWordFromTermRanks(storage.db, { ...request, groups: ['develop'] }, language, weights)).toBeNull();
  });

  it('reads the index’s state and the new words’ counts and terms in one statement before the search’s own', async () => {
    // A handle of its own, so nothing kept by the tests before counts here.
    const { handle: counted, sent } = recordingHandle(storage);
    const search = (query: string) => searchDocs({ ...storage, db: counted }, projectId, query);
    const first = await search('workflow replay history');
    expect(first.length).toBeGreaterThan(0);
    const stateReads = () => sent.filter((text) => text.includes('docs_state'));
    // The first search of the process: the state with every word's count and term, and no statement of its own for either.
    expect(stateReads().length).toBe(1);
    expect(stateReads()[0]).toContain('count(*)');
    expect(sent.filter((text) => text.includes('unnest'))).toEqual([]);
    sent.length = 0;
    // Known words and one new one: the state again, with the new word's count alone.
    await search('workflow replay zanzibarian');
    expect(stateReads().length).toBe(1);
    expect(stateReads()[0]!.split('count(*)').length - 1).toBe(1);
    expect(sent.filter((text) => text.includes('count(*)')).length).toBe(1);
    expect(await search('workflow replay history')).toEqual(first);
  });

  it('takes the words’ terms from the word counts’ statement, so the match asks for none', async () => {
    const asked = await requestFor('workflow execution history replay', 'none');
    const request = { ...asked, index: { ...asked.index, owner: {} } };
    const { handle: counted, sent } = recordingHandle(storage);
    await postgresFullText.frequencies(counted, request.index.owner, projectId, request.words, request.prefix);
    sent.length = 0;
    expect(await anyWordFromTermRanks(counted, request, language, weights)).not.toEqual([]);
    expect(sent.filter((text) => text.includes('unnest'))).toEqual([]);
    // Under another owner the terms are read by the match itself.
    await anyWordFromTermRanks(counted, { ...request, index: { ...request.index, owner: {} } }, language, weights);
    expect(sent.filter((text) => text.includes('unnest')).length).toBe(1);
  });

  it('reads a new generation’s ranks, not the last one’s', async () => {
    const before = await requestFor('zanzibar quokka workflow', 'rarest');
    expect(before.within).toEqual(['zanzibar']);
    expect(await anyWordFromTermRanks(storage.db, before, language, weights)).toEqual([]);
    const build = await beginBuild(storage, projectId, 'next');
    const body = 'A quokka in Zanzibar keeps every Workflow Execution it sees.';
    await writePages(storage, build, [
      {
        path: 'docs/zoo.md',
        route: '/docs/zoo',
        title: 'Zoo',
        description: null,
        keywords: [],
        group: 'docs',
        position: 10_000,
        hidden: false,
        markdown: `# Zoo\n\n${body}`,
        sections: [{ anchor: '', heading: 'Zoo', level: 1, markdown: body, text: body }],
        sourceHash: 'zoo',
      },
    ]);
    await finishBuild(storage, build);
    const after = await requestFor('zanzibar quokka workflow', 'rarest');
    const found = await anyWordFromTermRanks(storage.db, after, language, weights);
    expect(found?.map((candidate) => [candidate.path, candidate.found])).toEqual([['docs/zoo.md', 3]]);
    expect((await searchDocs(storage, projectId, 'zanzibar quokka'))[0]?.path).toBe('docs/zoo.md');
  });
});

const sqliteDatabases = testDatabases.filter((database) => database.dialect === 'sqlite');

/**
 * The same on SQLite: the any-word match from ranks kept per FTS5 phrase (sqlite-term-ranks.ts) against
 * bm25() of the whole expression, over the same pages and queries.
 */
describe.each(sqliteDatabases)('the any-word match from kept phrase ranks on $dialect', (database) => {
  const projectId = 'prj_phrase_ranks';
  const indexed = indexedCorpus(database, projectId);
  let storage: Storage;
  beforeAll(() => {
    storage = indexed.storage();
  });
  const syntax = {
    phrase: (word: string, asPrefix: boolean) => (asPrefix ? `"${word}"*` : `"${word}"`),
    inProject: (id: string, phrase: string) => `project : "${projectToken(id)}" AND {title heading body} : (${phrase})`,
    weights: sql.join([0, 10, 5, 1].map((weight) => sql.lit(weight))),
  };

  const requestFor = (query: string, rarest: boolean) => anyWordRequest(storage, sqliteFullText, projectId, query, rarest);

  it.each([false, true])('ranks real queries as bm25() of the whole expression does (rarer words required: %s)', async (rarest) => {
    let places = 0;
    let same = 0;
    for (const query of asked) {
      const request = await requestFor(query.query, rarest);
      const kept = await anyWordFromPhraseRanks(storage.db, request, syntax);
      expect(kept, query.query).not.toBeNull();
      const statement = await sqliteStatement(storage.db, request);
      expect(kept!.length, query.query).toBe(statement.length);
      kept!.forEach((entry, index) => {
        expect(Math.abs(entry.rank - statement[index].rank), `${query.query}: place ${index}`).toBeLessThanOrEqual(1e-9 * Math.max(1, statement[index].rank));
        if (Number(entry.id) === Number(statement[index].id)) same++;
      });
      places += kept!.length;
    }
    expect(places).toBeGreaterThan(1000);
    expect(same / places).toBeGreaterThan(0.99);
  });

  it('reads ranks anew once the index changes', async () => {
    const request = await requestFor('workflow history', false);
    const first = await anyWordFromPhraseRanks(storage.db, request, syntax);
    await indexCorpusPages(storage, 'prj_other_project', pages.slice(160, 200));
    const again = await anyWordFromPhraseRanks(storage.db, request, syntax);
    const statement = await sqliteStatement(storage.db, request);
    // Another project's pages change every word's frequency in the index, so bm25() of the same sections changes too.
    expect(again!.map((entry) => entry.rank)).not.toEqual(first!.map((entry) => entry.rank));
    again!.forEach((entry, index) => expect(entry.rank).toBeCloseTo(statement[index].rank, 9));
  });
});
