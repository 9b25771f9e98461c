import type { Candidate } from './engines/engine.ts';
import type { SearchTerms } from './terms.ts';

/** A word of the query counts as found when a word of the section starts with its first characters. */
const minimumStemLength = 4;
const suffixAllowance = 3;

function stem(word: string): string {
  return word.slice(0, Math.max(minimumStemLength, word.length - suffixAllowance));
}

/** Regular expression source of `text` as a literal. */
const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Finds a word beginning with the stem of `word`: not after a letter, mark or digit (a letter outside
 * the Basic Multilingual Plane counts whole), in any case. Case-insensitive matching spares lower-casing
 * the text: the hundred candidates of a search hold megabytes in large docs, and lower-casing them cost
 * twice what the search itself did.
 */
function wordBeginning(word: string): RegExp {
  // A stem cut between the two halves of a pair would match neither.
  const cut = stem(word);
  const whole = /[\ud800-\udbff]$/.test(cut) ? cut.slice(0, -1) : cut;
  return new RegExp(`(?<![\\p{L}\\p{M}\\p{N}])${literal(whole)}`, 'iu');
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

/**
 * Scores in 0..1, so a threshold means the same for every query:
 *
 *   score = (found - 1 + 0.5 + 0.5 × rank / best rank) / words
 *
 * `found` of the query's `words` are in the section, so a section holding all of them scores above
 * (words - 1) / words and one holding half of them at most 0.5: the share of the query a section
 * answers is the absolute part. Within one share, the engine's rank (title and heading weighted
 * above body, the phrase and prefix terms included) relative to the query's best match places it in
 * the upper half of its band, so sections with more words always come first, then the engine's
 * order; the best section holding every word scores 1.
 */
export function scoreCandidates(terms: SearchTerms, candidates: Candidate[]): Array<Candidate & { score: number }> {
  const best = Math.max(0, ...candidates.map((candidate) => candidate.rank));
  const words = terms.distinct.length;
  const beginnings = terms.distinct.map(wordBeginning);
  return candidates.map((candidate) => {
    const relative = best > 0 ? candidate.rank / best : 1;
    return { ...candidate, score: (wordsFound(beginnings, candidate) - 0.5 + 0.5 * relative) / words };
  });
}
