import type { Expression, Kysely, SqlBool } from 'kysely';
import type { Database } from '../../../storage/schema.ts';

/** One section as the full-text index takes it: its page's title, its heading and its plain text. */
export interface FullTextEntry {
  sectionId: number;
  projectId: string;
  title: string;
  heading: string;
  text: string;
}

/** The user's words, already reduced to letters and digits (see ../terms.ts), so no engine syntax. */
export interface MatchRequest {
  projectId: string;
  /** Distinct words, in query order. */
  words: string[];
  /**
   * Whether a section must hold every word (the last one as a word or a prefix) rather than any of
   * them: far fewer sections to rank when the words are common.
   */
  every: boolean;
  /** Whether the words must be in the page title or the section heading, not only in the body. */
  headingsOnly: boolean;
  /**
   * Whether at least one of the words must be in the page title or the section heading (the others
   * anywhere): with `every`, far fewer sections to rank than every word anywhere when they are common.
   * Asked only of an engine with `headingsIndexed`.
   */
  oneInHeadings: boolean;
  /**
   * With `every` false, the words of which a section must hold at least one (the query's rarest),
   * null for any of `words`: the others still count in the rank of the sections that match.
   */
  within: string[] | null;
  /** The last word, also matched as a prefix; null when too short to be one. */
  prefix: string | null;
  /** The query's words in order, matched as a phrase for a bonus; null for a one-word query. */
  phrase: string[] | null;
  /** Which docs_sections rows are visible (the project's current generation). */
  visible: Expression<SqlBool>;
  /**
   * The index the search reads: the project's generation and the time it was switched to, which name its
   * rows for as long as it is current (see ../cache.ts), and the database handle under which an engine may
   * keep what it read of them between searches.
   */
  index: { owner: object; generation: number; builtAt: number };
  /**
   * How many of the project's indexed sections hold each word (the last also as a prefix), where the
   * search has read them (see wordFrequencies in ../generation.ts), else null: a word in none needs no match of its own.
   */
  counts: Map<string, number> | null;
  /** Only pages of these navigation groups; null for all. */
  groups: string[] | null;
  limit: number;
}

/**
 * A matching section, ranked by the engine: larger `rank` is better, 0 or more. Its Markdown is read
 * only for the sections the search returns: the candidates' text alone is megabytes in large docs.
 */
export interface Candidate {
  /** docs_sections.id. */
  id: number;
  path: string;
  route: string;
  title: string;
  group: string;
  position: number;
  ordinal: number;
  anchor: string;
  heading: string;
  /**
   * The section's plain text, in which score.ts looks for the query's words; absent when the engine
   * counted them itself (`found`), so that the text never leaves the database.
   */
  text?: string;
  /**
   * How many of the request's `words` the section holds (the last also as a prefix), as the engine's
   * own stemming matches them; absent when score.ts is to count them in `text`.
   */
  found?: number;
  rank: number;
}

/** The full-text index of one database engine (the table `docs_search`, which each engine defines its own way). */
export interface FullTextIndex {
  /**
   * Whether titles and headings have an index of their own (PostgreSQL's `headings`), so that asking
   * for one word there (`oneInHeadings`) cheaply narrows the sections to rank. FTS5 ranks inside its
   * one index, where the extra match cost more than it saved, and found slightly worse sections.
   */
  headingsIndexed: boolean;
  /**
   * Whether `frequencies` reads a word's count from the index entries alone (FTS5), cheaply enough to
   * ask before every search with a new last word (see wholeWordSections in ../generation.ts).
   * PostgreSQL's count visits the row of every section holding the word: for a common word, more than
   * the prefix it would spare.
   */
  countsCheaply: boolean;
  add(trx: Kysely<Database>, entries: FullTextEntry[]): Promise<void>;
  /** Removes the sections whose ids `sectionIds` selects, before they are deleted. */
  remove(trx: Kysely<Database>, sectionIds: Expression<{ id: number }>): Promise<void>;
  match(db: Kysely<Database>, request: MatchRequest): Promise<Candidate[]>;
  /**
   * How many of the project's indexed sections hold each of `words` (`prefix` also as a prefix),
   * in the order given. Sections of other generations still in the index count too: the figure only
   * tells rare words from common ones. `owner` is the database handle under which the engine may keep
   * what it reads beside the counts (MatchRequest's `index.owner`).
   */
  frequencies(db: Kysely<Database>, owner: object, projectId: string, words: string[], prefix: string | null): Promise<number[]>;
  /**
   * The project's current index (its docs_state row; null without one) and, in the same round trip, what
   * `frequencies` gives for `words`: where each statement is a round trip to a server (PostgreSQL), a
   * search with words not counted yet starts with one instead of two.
   */
  stateWithFrequencies?(
    db: Kysely<Database>,
    owner: object,
    projectId: string,
    words: string[],
    prefix: string | null,
  ): Promise<{ generation: number; builtAt: number | null; counts: number[] } | null>;
}
