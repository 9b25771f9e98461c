import type { Candidate } from './engines/engine.ts';
import type { SearchTerms } from './terms.ts';

/** A word of the query counts as found when a word of the section starts with its first characters. */
const minimumStemLength = 4;
const suffixAllowance = 3;

function stem(word: string): string {
  return word.slice(0, Math.max(minimumStemLength, word.length - suffixAllowance));
}

/**
 * How many of the query's distinct words the section holds, in its page title, heading or text. The
 * engines stem words (`configuring` finds `configuration`), so a word counts when a word of the
 * section starts with its stem-like beginning, and the last word counts as a prefix. At least 1: the
 * engine matched the section on some word, even when this rough stemming misses it.
 */
function wordsFound(terms: SearchTerms, candidate: Candidate): number {
  const words = new Set(`${candidate.title} ${candidate.heading} ${candidate.text}`.toLowerCase().match(/[\p{L}\p{M}\p{N}]+/gu));
  let found = 0;
  for (const word of terms.distinct) {
    const beginning = stem(word);
    for (const candidateWord of words) {
      if (candidateWord.startsWith(beginning)) {
        found += 1;
        break;
      }
    }
  }
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
  return candidates.map((candidate) => {
    const relative = best > 0 ? candidate.rank / best : 1;
    return { ...candidate, score: (wordsFound(terms, candidate) - 0.5 + 0.5 * relative) / words };
  });
}
