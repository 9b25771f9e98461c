import { stopWords } from './stop-words.ts';

/** More words than this add little and cost a term each. */
const maxWords = 24;
/** Longer "words" are not words; the engines would not index them whole either. */
const maxWordLength = 64;
/** A shorter last word would match as a prefix almost everything. */
const minPrefixLength = 2;

/** A query reduced to what the engines match: runs of letters, marks and digits, lower-cased. */
export interface SearchTerms {
  /** Distinct words in query order, stop words left out unless the query has no other word. */
  distinct: string[];
  /** Every word in order, for the phrase. */
  sequence: string[];
  /** The last word when it may be a prefix of a longer one (not a stop word, unless they are all the query has). */
  prefix: string | null;
}

/**
 * Reads the public's query as words only. Everything else (quotes, `*`, `:`, parentheses, `-`,
 * lone surrogates, which become U+FFFD) separates words, so no engine syntax survives into a match
 * expression, and `NEAR` or `OR` are words like any other. Stop words (`how do I`) would match most
 * sections and make the engines rank them all, so they count only for the phrase, or when the query
 * is nothing else (`to be or not to be`). Null when no word is left.
 */
export function searchTerms(query: string): SearchTerms | null {
  const sequence = (
    query
      .toWellFormed()
      .normalize('NFKC')
      .toLowerCase()
      .match(/[\p{L}\p{M}\p{N}]+/gu) ?? []
  )
    .filter((word) => word.length <= maxWordLength)
    .slice(0, maxWords);
  if (sequence.length === 0) return null;
  const meaningful = sequence.filter((word) => !stopWords.has(word));
  const words = meaningful.length > 0 ? meaningful : sequence;
  const last = sequence[sequence.length - 1]!;
  const prefix = words.includes(last) && last.length >= minPrefixLength ? last : null;
  return { distinct: [...new Set(words)], sequence, prefix };
}
