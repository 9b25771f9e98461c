import type { Storage } from '../../storage/dialect.ts';
import { currentGeneration, visibleAt } from '../index/visible.ts';
import type { Candidate, MatchRequest } from './engines/engine.ts';
import { fullTextIndexes } from './engines/engines.ts';
import { scoreCandidates } from './score.ts';
import { searchTerms } from './terms.ts';

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
  const request = {
    projectId,
    words: terms.distinct,
    prefix: terms.prefix,
    phrase: terms.sequence.length > 1 ? terms.sequence : null,
    visible: visibleAt('s', currentGeneration(projectId)),
    groups: options.groups ?? null,
    limit: candidateCount,
  };
  const engine = fullTextIndexes[storage.profile.name];
  let candidates: Candidate[] = [];
  for (const tier of tiers) {
    candidates = await engine.match(storage.db, { ...request, ...tier });
    if (candidates.length >= limit) break;
  }
  return scoreCandidates(terms, candidates)
    .filter((hit) => hit.score >= (options.scoreThreshold ?? 0))
    .sort((a, b) => b.score - a.score || a.position - b.position || a.ordinal - b.ordinal)
    .slice(0, limit)
    .map(({ path, route, title, group, anchor, heading, markdown, score }) => ({ path, route, title, group, anchor, heading, markdown, score }));
}
