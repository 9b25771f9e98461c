import type { Candidate } from './engines/engine.ts';
import { literal, stem } from './engines/stem.ts';
import type { SearchTerms } from './terms.ts';

/**
 * Finds a word beginning with the stem of `word`: not after a letter, mark or digit (a letter outside
 * the Basic Multilingual Plane counts whole), in any case. Case-insensitive matching spares lower-casing
 * the text: the hundred candidates of a search hold megabytes in large docs, and lower-casing them cost
 * twice what the search itself did.
 */
function wordBeginning(word: string): RegExp {
  return new RegExp(`(?<![\\p{L}\\p{M}\\p{N}])${literal(stem(word))}`, 'iu');
}

/**
 * How many of the query's distinct words the section holds, in its page title, heading or text. The
 * engines stem words (`configuring` finds `configuration`), so a word counts when a word of the
 * section starts with its stem-like beginning, and the last word counts as a prefix. At least 1: the
 * engine matched the section on some word, even when this rough stemming misses it. The text is
 * searched for each beginning, not split into words: a section holds thousands of words, and
 * splitting the hundred candidates of each search cost more than the engine's match itself. An engine
 * that counts the words itself (`found`, PostgreSQL from its stored tsvector) is taken at its word.
 */
function wordsFound(beginnings: RegExp[], candidate: Candidate): number {
  if (candidate.found !== undefined) return Math.max(1, candidate.found);
  const fields = [candidate.title, candidate.heading, candidate.text ?? ''];
  const found = beginnings.filter((beginning) => fields.some((field) => beginning.test(field))).length;
  return Math.max(1, found);
}

/** How many of the query's distinct words the page title holds, as wordsFound finds them. */
function wordsInTitle(beginnings: RegExp[], candidate: Candidate): number {
  return beginnings.filter((beginning) => beginning.test(candidate.title)).length;
}

/**
 * A page's first sections (its introduction, then the sections that open its subject) answer a search
 * for the page's subject better than the details further down: each of the first `introSections` gains
 * `introWeight` less than the one before, later ones nothing.
 */
const introSections = 5;
const introWeight = 0.02;

/** The most the parts below add up to, so that the score stays in 0..1. */
const highest = 3 + introSections * introWeight;

/**
 * Scores in 0..1, so a threshold means the same for every query:
 *
 *   score = (found / words + rank / best rank + in title / words + introduction) / highest
 *
 * Three parts of equal weight: the share of the query's `words` the section holds (`found`, in its
 * page title, heading or text), the engine's rank relative to the query's best match (title and
 * heading weighted above body, the phrase and prefix terms included), and the share of the words in
 * its page's title, since a page named after the query is most often the one the reader wants. A
 * small last part prefers a page's first sections (see `introWeight`). On the quality corpus
 * (bench/docs-quality-quire.ts) the title share lifted recall@5 and MRR on both engines, and ranking
 * every section holding more words above any holding fewer (the share as a band) ranked worse than
 * weighing it with the rest.
 */
export function scoreCandidates(terms: SearchTerms, candidates: Candidate[]): Array<Candidate & { found: number; score: number }> {
  const best = Math.max(0, ...candidates.map((candidate) => candidate.rank));
  const words = terms.distinct.length;
  const beginnings = terms.distinct.map(wordBeginning);
  return candidates.map((candidate) => {
    const relative = best > 0 ? candidate.rank / best : 1;
    const found = wordsFound(beginnings, candidate);
    const intro = Math.max(0, introSections - Number(candidate.ordinal)) * introWeight;
    const score = (found / words + relative + wordsInTitle(beginnings, candidate) / words + intro) / highest;
    return { ...candidate, found, score };
  });
}
