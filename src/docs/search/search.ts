import type { Storage } from '../../storage/dialect.ts';
import { cacheFor } from './cache.ts';
import { AnswerCache, perOwner } from '../../lib/answer-cache.ts';
import { fullTextIndexes } from './engines/engines.ts';
import { keepFrequencies, keptFrequencies, searchGeneration, type SearchHit } from './generation.ts';
import { searchTerms } from './terms.ts';

export type { SearchHit } from './generation.ts';

export interface SearchOptions {
  /** 1..50; default 10. */
  limit?: number;
  /** 0..1: sections scoring less are left out; default 0. */
  scoreThreshold?: number;
  /** Only sections of pages in these navigation groups; default all. */
  groups?: string[];
}

/** searchGeneration's module, which a reading thread loads (Storage.readers). */
const generationModule = new URL('./generation.ts', import.meta.url);

/**
 * Searches the sections of the project's current docs (hidden pages included) for the public's
 * `query`: any of its words, best first by score, ties in navigation order. The discovery search,
 * the MCP search tool and the assistant's search tool all answer with it. A query with no words
 * finds nothing.
 */
export async function searchDocs(storage: Storage, projectId: string, query: string, options: SearchOptions = {}): Promise<SearchHit[]> {
  return (await searchDocsShared(storage, projectId, query, options)).map((hit) => ({ ...hit }));
}

/**
 * searchDocs's answer as the process keeps it: the same frozen array for every caller while it is
 * kept (see cache.ts), so a caller may keep what it derives from an answer in a WeakMap keyed by it,
 * for as long as the answer itself is kept (the discovery search keeps the JSON it sent). An answer
 * that was not kept (no words, no index yet) is a new array each time.
 */
export async function searchDocsShared(storage: Storage, projectId: string, query: string, options: SearchOptions = {}): Promise<readonly SearchHit[]> {
  const terms = searchTerms(query);
  if (!terms || options.groups?.length === 0) return [];
  const limit = Math.min(50, Math.max(1, options.limit ?? 10));
  const threshold = options.scoreThreshold ?? 0;
  // On SQLite the ranking runs on a reading thread, so that the event loop serves other requests meanwhile.
  // Elsewhere the project's state and the search's statements (one to five) share one connection of the
  // pool, taken once: taken for each, a search waited in the pool's queue as many times while other
  // searches and writes held the connections.
  if (storage.readers) {
    const readers = storage.readers;
    return answer(storage.db, (generation, builtAt) =>
      readers.run<SearchHit[]>(generationModule, 'searchGeneration', [projectId, generation, builtAt, terms, limit, threshold, options.groups ?? null]),
    );
  }
  return storage.db
    .connection()
    .execute((db) =>
      answer(db, (generation, builtAt) =>
        searchGeneration(
          { db, profile: storage.profile, database: storage.db },
          projectId,
          generation,
          builtAt,
          terms,
          limit,
          threshold,
          options.groups ?? null,
        ),
      ),
    );

  /** The answer for the project's current generation, kept or found with `search`. */
  async function answer(db: Storage['db'], search: (generation: number, builtAt: number) => Promise<SearchHit[]>): Promise<readonly SearchHit[]> {
    const state = await currentIndex(db);
    if (!state || state.builtAt === null) return [];
    const cache = cacheFor<readonly SearchHit[]>(storage.db, answerSize);
    const key = JSON.stringify([projectId, state.generation, state.builtAt, terms, limit, threshold, options.groups ?? null]);
    const cached = cache.get(key);
    if (cached) return cached;
    const hits = Object.freeze((await search(state.generation, state.builtAt)).map((hit) => Object.freeze(hit)));
    cache.set(key, hits);
    return hits;
  }

  /**
   * The project's current generation and switch time. Where the engine can (PostgreSQL), the counts of the
   * query's words that the search will need are read in the same statement, for the generation this process
   * last saw: a build switch in between only leaves them to be read by the search, as without it.
   */
  async function currentIndex(db: Storage['db']): Promise<{ generation: number; builtAt: number | null } | undefined> {
    const combined = fullTextIndexes[storage.profile.name].stateWithFrequencies;
    if (!combined || !terms || terms.distinct.length < 2) {
      const row = await db.selectFrom('docs_state').select(['generation', 'built_at']).where('project_id', '=', projectId).executeTakeFirst();
      return row && { generation: row.generation, builtAt: row.built_at === null ? null : Number(row.built_at) };
    }
    const owner = storage.db;
    const seen = lastGenerations(owner).get(projectId);
    const kept = seen === undefined ? new Map<string, number>() : keptFrequencies(owner, projectId, seen, terms.distinct, terms.prefix);
    const words = terms.distinct.filter((word) => !kept.has(word));
    const read = await combined(db, owner, projectId, words, terms.prefix);
    if (!read) return undefined;
    // A section count covers every generation still in the index (FullTextIndex.frequencies): right for the one read.
    keepFrequencies(owner, projectId, read.generation, words, terms.prefix, read.counts);
    lastGenerations(owner).set(projectId, read.generation);
    return read;
  }
}

/** The generation each project's search last read, per database: which words' counts to read with the next one's state. */
const lastGenerations = perOwner(() => new AnswerCache<number>(() => 1, { entries: 65_536, characters: 65_536 }));

/** Characters an answer holds, for the cache's bound. */
function answerSize(hits: readonly SearchHit[]): number {
  return hits.reduce((sum, hit) => sum + hit.markdown.length + hit.heading.length + hit.title.length + hit.path.length + hit.route.length + 64, 256);
}
