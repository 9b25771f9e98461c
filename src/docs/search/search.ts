import type { Storage } from '../../storage/dialect.ts';
import { currentGeneration, visibleAt } from '../index/visible.ts';
import type { MatchRequest } from './engines/engine.ts';
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
  const request: Omit<MatchRequest, 'every'> = {
    projectId,
    words: terms.distinct,
    prefix: terms.prefix,
    phrase: terms.sequence.length > 1 ? terms.sequence : null,
    visible: visibleAt('s', currentGeneration(projectId)),
    groups: options.groups ?? null,
    limit: candidateCount,
  };
  const engine = fullTextIndexes[storage.profile.name];
  // Sections holding every word score above any that lacks one (see score.ts): when there are
  // enough of them, sections with only some of the words need not be ranked at all.
  let candidates = await engine.match(storage.db, { ...request, every: true });
  if (candidates.length < limit && terms.distinct.length > 1) candidates = await engine.match(storage.db, { ...request, every: false });
  return scoreCandidates(terms, candidates)
    .filter((hit) => hit.score >= (options.scoreThreshold ?? 0))
    .sort((a, b) => b.score - a.score || a.position - b.position || a.ordinal - b.ordinal)
    .slice(0, limit)
    .map(({ path, route, title, group, anchor, heading, markdown, score }) => ({ path, route, title, group, anchor, heading, markdown, score }));
}
