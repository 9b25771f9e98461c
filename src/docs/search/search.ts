import type { Storage } from '../../storage/dialect.ts';
import { visibleAt } from '../index/visible.ts';
import { cacheFor } from './cache.ts';
import type { Candidate, MatchRequest } from './engines/engine.ts';
import { fullTextIndexes } from './engines/engines.ts';
import { scoreCandidates } from './score.ts';
import { searchTerms, type SearchTerms } from './terms.ts';

export interface SearchOptions {
  /** 1..50; default 10. */
  limit?: number;
  /** 0..1: sections scoring less are left out; default 0. */
  scoreThreshold?: number;
  /** Only sections of pages in these navigation groups; default all. */
  groups?: string[];
}

export interface SearchHit {
  path: string;
  route: string;
  title: string;
  group: string;
  anchor: string;
  heading: string;
  /** The section's Markdown. */
  markdown: string;
  /** 0..1, see score.ts. */
  score: number;
}

/**
 * Narrowest first, each asked only when the one before found fewer sections than wanted: common
 * words match most sections, and the engine's ranking costs in proportion to the sections matched.
 * Sections with every word score above any that lacks one (see score.ts), and the engines weigh a
 * word in a title or heading far above one in a body, so the narrower tiers hold the best sections.
 */
const tiers: Pick<MatchRequest, 'every' | 'headingsOnly'>[] = [
  { every: true, headingsOnly: true },
  { every: true, headingsOnly: false },
  { every: false, headingsOnly: false },
];

/** Sections the engine ranks and the scoring then orders: enough that its reordering finds the best. */
const candidateCount = 100;

/**
 * Searches the sections of the project's current docs (hidden pages included) for the public's
 * `query`: any of its words, best first by score, ties in navigation order. The discovery search,
 * the MCP search tool and the assistant's search tool all answer with it. A query with no words
 * finds nothing.
 */
export async function searchDocs(storage: Storage, projectId: string, query: string, options: SearchOptions = {}): Promise<SearchHit[]> {
  const terms = searchTerms(query);
  if (!terms || options.groups?.length === 0) return [];
  const limit = Math.min(50, Math.max(1, options.limit ?? 10));
  const threshold = options.scoreThreshold ?? 0;
  const state = await storage.db.selectFrom('docs_state').select(['generation', 'built_at']).where('project_id', '=', projectId).executeTakeFirst();
  if (!state || state.built_at === null) return [];
  const cache = cacheFor<SearchHit[]>(storage.db, answerSize);
  const key = JSON.stringify([projectId, state.generation, state.built_at, terms, limit, threshold, options.groups ?? null]);
  const cached = cache.get(key);
  if (cached) return cached.map((hit) => ({ ...hit }));
  const hits = await searchGeneration(storage, projectId, state.generation, terms, limit, threshold, options.groups ?? null);
  cache.set(key, hits);
  return hits.map((hit) => ({ ...hit }));
}

/** Characters an answer holds, for the cache's bound. */
function answerSize(hits: SearchHit[]): number {
  return hits.reduce((sum, hit) => sum + hit.markdown.length + hit.heading.length + hit.title.length + hit.path.length + hit.route.length + 64, 256);
}

/**
 * The search of one generation of the project's index. Rows visible at `generation` do not change
 * while it is current; were the index to move two builds on while this runs (the second purging what
 * the first retired), the answer would miss those rows and be kept under a generation no one asks for.
 */
async function searchGeneration(
  storage: Storage,
  projectId: string,
  generation: number,
  terms: SearchTerms,
  limit: number,
  threshold: number,
  groups: string[] | null,
): Promise<SearchHit[]> {
  const request = {
    projectId,
    words: terms.distinct,
    prefix: terms.prefix,
    phrase: terms.sequence.length > 1 ? terms.sequence : null,
    visible: visibleAt('s', generation),
    groups,
    limit: candidateCount,
  };
  const engine = fullTextIndexes[storage.profile.name];
  let candidates: Candidate[] = [];
  for (const tier of tiers) {
    candidates = await engine.match(storage.db, { ...request, ...tier });
    if (candidates.length >= limit) break;
  }
  return scoreCandidates(terms, candidates)
    .filter((hit) => hit.score >= threshold)
    .sort((a, b) => b.score - a.score || a.position - b.position || a.ordinal - b.ordinal)
    .slice(0, limit)
    .map(({ path, route, title, group, anchor, heading, markdown, score }) => ({ path, route, title, group, anchor, heading, markdown, score }));
}
