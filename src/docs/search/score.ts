import type { Candidate } from './engines/engine.ts';
import type { SearchTerms } from './terms.ts';

/** A word of the query counts as found when a word of the section starts with its first characters. */
const minimumStemLength = 4;
const suffixAllowance = 3;

function stem(word: string): string {
  return word.slice(0, Math.max(minimumStemLength, word.length - suffixAllowance));
}

/** A letter, mark or digit: a character of a word, as the query's words are cut (terms.ts). */
const wordCharacter = /[\p{L}\p{M}\p{N}]/u;

/** Whether a word of `text` (lower case) begins with `beginning`, itself word characters only. */
function beginsAWord(text: string, beginning: string): boolean {
  for (let at = text.indexOf(beginning); at >= 0; at = text.indexOf(beginning, at + 1)) {
    if (at === 0) return true;
    // The character before, whole: a letter outside the Basic Multilingual Plane is two code units.
    const pair = at >= 2 ? text.codePointAt(at - 2)! : 0;
    const before = pair > 0xffff ? pair : text.charCodeAt(at - 1);
    if (!wordCharacter.test(String.fromCodePoint(before))) return true;
  }
  return false;
}

/**
 * How many of the query's distinct words the section holds, in its page title, heading or text. The
 * engines stem words (`configuring` finds `configuration`), so a word counts when a word of the
 * section starts with its stem-like beginning, and the last word counts as a prefix. At least 1: the
 * engine matched the section on some word, even when this rough stemming misses it. The text is
 * searched for each beginning (`indexOf`), not split into words: a section holds thousands of words,
 * and splitting the hundred candidates of each search cost more than the engine's match itself.
 */
function wordsFound(terms: SearchTerms, candidate: Candidate): number {
  const text = `${candidate.title} ${candidate.heading} ${candidate.text}`.toLowerCase();
  const found = terms.distinct.filter((word) => beginsAWord(text, stem(word))).length;
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
