/** More words than this add little and cost a term each. */
const maxWords = 24;
/** Longer "words" are not words; the engines would not index them whole either. */
const maxWordLength = 64;
/** A shorter last word would match as a prefix almost everything. */
const minPrefixLength = 2;

/** A query reduced to what the engines match: runs of letters, marks and digits, lower-cased. */
export interface SearchTerms {
  /** Distinct words in query order. */
  distinct: string[];
  /** Every word in order, for the phrase. */
  sequence: string[];
  /** The last word when it may be a prefix of a longer one. */
  prefix: string | null;
}

/**
 * Reads the public's query as words only. Everything else (quotes, `*`, `:`, parentheses, `-`,
 * lone surrogates, which become U+FFFD) separates words, so no engine syntax survives into a match
 * expression, and `NEAR` or `OR` are words like any other. Null when no word is left.
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
  const last = sequence[sequence.length - 1]!;
  return { distinct: [...new Set(sequence)], sequence, prefix: last.length >= minPrefixLength ? last : null };
}
