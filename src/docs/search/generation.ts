import type { ReadStorage } from '../../storage/dialect.ts';
import { visibleAt } from '../index/visible.ts';
import { AnswerCache, perOwner } from '../../lib/answer-cache.ts';
import { keptSections, type Build } from './engines/kept-ranks.ts';
import type { Candidate, MatchRequest } from './engines/engine.ts';
import { fullTextIndexes } from './engines/engines.ts';
import { scoreCandidates } from './score.ts';
import type { SearchTerms } from './terms.ts';

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
 * The share of the words a section holds is a third of its score (see score.ts), and the engines weigh
 * a word in a title or heading far above one in a body, so the narrower tiers hold the best sections.
 * The tier of every word with one of them in a title or heading is asked only of an engine that
 * indexes titles and headings apart (FullTextIndex's `headingsIndexed`).
 */
const tiers: Pick<MatchRequest, 'every' | 'headingsOnly' | 'oneInHeadings'>[] = [
  { every: true, headingsOnly: true, oneInHeadings: false },
  { every: true, headingsOnly: false, oneInHeadings: true },
  { every: true, headingsOnly: false, oneInHeadings: false },
  { every: false, headingsOnly: false, oneInHeadings: false },
];

/** Sections the engine ranks and the scoring then orders: enough that its reordering finds the best. */
const candidateCount = 100;

/**
 * Sections the any-word match may rank, summed over the words it takes: the engines' ranking costs
 * in proportion to the sections matched, and a common word ("workflow", "17") matches thousands in
 * a large site. The rarest words are taken first, each while the sum stays within this bound (the
 * rarest always), so the sections holding the words that tell pages apart are ranked and the
 * common words only add to their rank.
 */
const rankedSectionsBudget = 1500;

/**
 * Where a search reads: a database, or one connection of its pool (`db`) with the database it belongs
 * to (`database`), under which what the search keeps between searches is kept.
 */
export type SearchStorage = ReadStorage & { database?: object };

/** How many sections hold each word, per database, kept per (project, generation, word). */
const frequencyCache = perOwner(() => new AnswerCache<number>(() => 1, { entries: 65_536, characters: 65_536 }));

const frequencyKey = (projectId: string, generation: number, word: string, prefix: string | null) =>
  JSON.stringify([projectId, generation, word, word === prefix]);

/** The counts kept for the project's `generation` (under `owner`, a database handle) of those of `words` that have one. */
export function keptFrequencies(owner: object, projectId: string, generation: number, words: string[], prefix: string | null): Map<string, number> {
  const cache = frequencyCache(owner);
  const kept = new Map<string, number>();
  for (const word of words) {
    const count = cache.get(frequencyKey(projectId, generation, word, prefix));
    if (count !== undefined) kept.set(word, count);
  }
  return kept;
}

/** Keeps the counts of `words` (as FullTextIndex.frequencies reads them) for the project's `generation`. */
export function keepFrequencies(owner: object, projectId: string, generation: number, words: string[], prefix: string | null, counts: number[]): void {
  const cache = frequencyCache(owner);
  words.forEach((word, index) => cache.set(frequencyKey(projectId, generation, word, prefix), counts[index]!));
}

/**
 * How many of the project's sections hold each of `words` (`prefix` also as a prefix), read from the
 * index once per generation: a generation's rows never change once readers see it, so its counts stay
 * right until the next.
 */
async function wordFrequencies(
  storage: SearchStorage,
  projectId: string,
  generation: number,
  words: string[],
  prefix: string | null,
): Promise<Map<string, number>> {
  const owner = storage.database ?? storage.db;
  const counts = keptFrequencies(owner, projectId, generation, words, prefix);
  const missing = words.filter((word) => !counts.has(word));
  const read = await fullTextIndexes[storage.profile.name].frequencies(storage.db, owner, projectId, missing, prefix);
  keepFrequencies(owner, projectId, generation, missing, prefix, read);
  missing.forEach((word, index) => counts.set(word, read[index]!));
  return counts;
}

/**
 * Sections that must hold the query's last word, whole, for it to count as a word the reader has
 * finished typing rather than the beginning of one: it is then not also matched as a prefix. A
 * prefix term costs both engines the most of a match (every indexed word that begins so, and
 * FTS5's bm25() reads the index entries of all of them for its weights), and for a finished word
 * it only adds the words that share its first letters.
 */
const wholeWordSections = candidateCount;

/**
 * The query's terms with its last word as a prefix only when the project's sections hold it whole too
 * rarely (see wholeWordSections), on an engine that counts cheaply (FullTextIndex's `countsCheaply`).
 */
async function prefixWhenUnfinished(storage: SearchStorage, projectId: string, generation: number, terms: SearchTerms): Promise<SearchTerms> {
  if (terms.prefix === null || !fullTextIndexes[storage.profile.name].countsCheaply) return terms;
  const whole = (await wordFrequencies(storage, projectId, generation, [terms.prefix], null)).get(terms.prefix)!;
  return whole >= wholeWordSections ? { ...terms, prefix: null } : terms;
}

/**
 * The words the any-word match requires one of: the rarest first, while the sections they match
 * stay within the budget; null when that is every word (nothing to leave out). Ties keep query order.
 */
function rarestWords(terms: SearchTerms, counts: Map<string, number>): string[] | null {
  const byRarity = [...terms.distinct].sort((a, b) => counts.get(a)! - counts.get(b)!);
  const within: string[] = [];
  let sections = 0;
  for (const word of byRarity) {
    const count = counts.get(word)!;
    if (within.length > 0 && sections + count > rankedSectionsBudget) break;
    within.push(word);
    sections += count;
  }
  return within.length < byRarity.length ? within : null;
}

/** Sections' Markdown per database, by build and id (engines/kept-ranks.ts's keptSections). */
const markdownCache = perOwner(() => new AnswerCache<string>((text) => text.length + 64, { entries: 65_536, characters: 16 * 1024 * 1024 }));

/**
 * The Markdown of the sections `ids`, read only for those not kept: the sections a search answers with
 * recur (the pages a question's words point to), and each read was a round trip of its own on PostgreSQL.
 */
async function sectionsMarkdown(storage: SearchStorage, build: Build, ids: number[]): Promise<Map<number, string>> {
  return keptSections(markdownCache(storage.database ?? storage.db), build, ids, async (unread) =>
    (await storage.db.selectFrom('docs_sections').select(['id', 'markdown']).where('id', 'in', unread).execute()).map((row): [number, string] => [
      Number(row.id),
      row.markdown,
    ]),
  );
}

/**
 * The search of one generation of the project's index. Rows visible at `generation` do not change
 * while it is current; were the index to move two builds on while this runs (the second purging what
 * the first retired), the answer would miss those rows and be kept under a generation no one asks for.
 */
export async function searchGeneration(
  storage: SearchStorage,
  projectId: string,
  generation: number,
  builtAt: number,
  query: SearchTerms,
  limit: number,
  threshold: number,
  groups: string[] | null,
): Promise<SearchHit[]> {
  const terms = await prefixWhenUnfinished(storage, projectId, generation, query);
  const request = {
    projectId,
    words: terms.distinct,
    prefix: terms.prefix,
    phrase: terms.sequence.length > 1 ? terms.sequence : null,
    visible: visibleAt('s', generation),
    index: { owner: storage.database ?? storage.db, generation, builtAt },
    groups,
    limit: candidateCount,
    within: null,
    counts: null,
  };
  const engine = fullTextIndexes[storage.profile.name];
  // The words' counts (which the any-word tier needs) are read first, once per word and generation (see
  // wordFrequencies): a word no section holds (a version number, a name the docs never use) leaves nothing
  // for the tiers that need every word, so they are not asked; each tier is a ranked statement while the
  // search holds its connection. On PostgreSQL, whose count visits every section holding the word
  // (FullTextIndex's `countsCheaply`), a common word's first count in a generation is paid even when the
  // every-word tiers fill the answer.
  const counts = terms.distinct.length > 1 ? await wordFrequencies(storage, projectId, generation, terms.distinct, terms.prefix) : null;
  const everyWordFound = counts === null || terms.distinct.every((word) => counts.get(word)! > 0);
  let candidates: Candidate[] = [];
  /** Sections that hold one of the rarest words, when the any-word match required them. */
  let rare: Set<number> | null = null;
  let asked: (typeof tiers)[number] | null = null;
  for (const tier of tiers.filter((tier) => (engine.headingsIndexed || !tier.oneInHeadings) && (everyWordFound || !tier.every))) {
    const within = !tier.every && counts ? rarestWords(terms, counts) : null;
    // The sections a wider tier finds again keep the rank the narrower one gave them: a rank that needs
    // every word weighs how they occur together (PostgreSQL's ts_rank() of an AND query), which ranked
    // better on the quality corpus than the any-word rank, and the wider tier's best hundred may
    // leave them out. The headings-only tier's rank counts titles and headings alone, so its sections
    // are ranked again.
    const earlier = asked?.headingsOnly ? [] : candidates;
    asked = tier;
    const seen = new Set(earlier.map((candidate) => Number(candidate.id)));
    candidates = [
      ...earlier,
      ...(await engine.match(storage.db, { ...request, ...tier, within, counts })).filter((candidate) => !seen.has(Number(candidate.id))),
    ];
    if (within && candidates.length < limit) {
      // Too few sections hold the rare words: sections of the common words alone fill the answer, after them.
      rare = new Set(candidates.map((candidate) => Number(candidate.id)));
      const known = rare;
      const more = await engine.match(storage.db, { ...request, ...tier, within: null, counts });
      candidates = [...candidates, ...more.filter((candidate) => !known.has(Number(candidate.id)))];
    }
    if (candidates.length >= limit) break;
  }
  const holdsRare = (id: number) => (rare === null || rare.has(Number(id)) ? 0 : 1);
  const best = scoreCandidates(terms, candidates)
    .filter((hit) => hit.score >= threshold)
    .sort((a, b) => holdsRare(a.id) - holdsRare(b.id) || b.score - a.score || a.position - b.position || a.ordinal - b.ordinal)
    .slice(0, limit);
  const markdown = await sectionsMarkdown(
    storage,
    { projectId, generation, builtAt },
    best.map((hit) => Number(hit.id)),
  );
  return best.map(({ id, path, route, title, group, anchor, heading, score }) => ({
    path,
    route,
    title,
    group,
    anchor,
    heading,
    markdown: markdown.get(Number(id)) ?? '',
    score,
  }));
}
