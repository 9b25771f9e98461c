import { AnswerCache, perOwner } from '../../../lib/answer-cache.ts';
import type { Candidate } from './engine.ts';

/**
 * What the engines keep between searches to sum the any-word match from each term's ranks instead of
 * ranking the sections at every search (postgres-term-ranks.ts, sqlite-term-ranks.ts): per term (or FTS5
 * phrase) and build, the sections holding it with their ranks, and each section's fields by build and id.
 */

/** Sections a required term may have for its ranks to be kept whole; beyond, the engine's statement ranks them. */
export const wholeTermSections = 4000;
/** Ranks kept per database handle, all terms together (about 40 bytes each). */
const maxKeptRanks = 2_000_000;

/** One term's ranks in the sections of one build of a project. */
export interface TermRanks {
  /** Every visible section holding the term (`whole`), or only those asked about so far. */
  whole: boolean;
  /** Section id → its rank for the term alone; 0 for a section asked about that does not hold it. */
  ranks: Map<number, number>;
  /** Each section's page position and ordinal (whole terms only): the order of equal ranks. */
  order: Map<number, [number, number]>;
}

/** A candidate's fields: all but its rank and the words found (the text too, where the engine returns it). */
export type SectionFields = Omit<Candidate, 'rank' | 'found'>;

export interface KeptRanks {
  /** A word as the engine reads it as a term (PostgreSQL's `to_tsquery`), or null when it is not one. */
  terms: AnswerCache<string | null>;
  ranks: AnswerCache<TermRanks>;
  /** Sections' fields by build and id (see withFields). */
  fields: AnswerCache<SectionFields>;
}

/** What is kept under `owner` (a database handle), made on first use. */
export const keptRanksFor = perOwner((): KeptRanks => ({
  terms: new AnswerCache<string | null>(() => 1, { entries: 65_536, characters: 65_536 }),
  ranks: new AnswerCache<TermRanks>((ranks) => ranks.ranks.size + 1, { entries: 65_536, characters: maxKeptRanks }),
  fields: new AnswerCache<SectionFields>(
    (row) => row.path.length + row.route.length + row.title.length + row.anchor.length + row.heading.length + (row.text?.length ?? 0) + 64,
    { entries: 262_144, characters: 64 * 1024 * 1024 },
  ),
}));

/** A term's ranks when every section holding it was read (`rows`, the term alone ranked by the engine). */
export function wholeRanks(rows: { id: number | string; rank: number; position: number; ordinal: number }[], rank = (value: number) => value): TermRanks {
  const ranks: TermRanks = { whole: true, ranks: new Map(), order: new Map() };
  for (const row of rows) {
    ranks.ranks.set(Number(row.id), rank(Number(row.rank)));
    ranks.order.set(Number(row.id), [Number(row.position), Number(row.ordinal)]);
  }
  return ranks;
}

/** The candidates (sections holding a required term) best first, as the statements order them: rank, then page position and ordinal. */
export function bestCandidates(
  candidates: Set<number>,
  required: Iterable<string>,
  ranksOf: Map<string, TermRanks>,
  rankOf: (id: number) => number,
  limit: number,
) {
  const requiredRanks = [...new Set(required)].map((term) => ranksOf.get(term)!);
  const orderOf = (id: number): [number, number] => {
    for (const ranks of requiredRanks) {
      const order = ranks.order.get(id);
      if (order) return order;
    }
    return [0, 0];
  };
  const ids = [...candidates];
  const ranks = Float64Array.from(ids, rankOf);
  // Only the sections ranked at least as high as the limit-th best can be among the best (ties with it included).
  const lowest = ids.length > limit ? Float64Array.from(ranks).sort()[ids.length - limit]! : -Infinity;
  const scored: { id: number; rank: number; position: number; ordinal: number }[] = [];
  ids.forEach((id, index) => {
    if (ranks[index]! < lowest) return;
    const [position, ordinal] = orderOf(id);
    scored.push({ id, rank: ranks[index]!, position, ordinal });
  });
  scored.sort((a, b) => b.rank - a.rank || a.position - b.position || a.ordinal - b.ordinal);
  return scored.slice(0, limit);
}

/** A project's build: its generation and the time it was switched to, which name its rows while it is current. */
export interface Build {
  projectId: string;
  generation: number;
  builtAt: number;
}

/**
 * What `cache` keeps of each of the sections `ids` in `build`, read (`read`, as [id, value] pairs) only for the
 * sections not kept yet. Kept per build, not by id alone: a row never changes once written, but SQLite gives a
 * purged row's id, when it was the largest, to the next row written, of any project.
 */
export async function keptSections<T>(
  cache: AnswerCache<T>,
  build: Build,
  ids: number[],
  read: (ids: number[]) => Promise<[number, T][]>,
): Promise<Map<number, T>> {
  const scope = JSON.stringify([build.projectId, build.generation, build.builtAt]);
  const keyOf = (id: number) => `${scope}${id}`;
  // Each looked up once: a lookup also makes the entry the most recently used, a reordering of the cache's map.
  const found = new Map<number, T>();
  const unread: number[] = [];
  for (const id of ids) {
    const value = cache.get(keyOf(id));
    if (value === undefined) unread.push(id);
    else found.set(id, value);
  }
  if (unread.length > 0)
    for (const [id, value] of await read(unread)) {
      cache.set(keyOf(id), value);
      found.set(id, value);
    }
  return found;
}

/** `best` with their fields (kept by keptSections), in order. */
export async function withFields(
  keep: KeptRanks,
  build: Build,
  best: { id: number; rank: number }[],
  read: (ids: number[]) => Promise<SectionFields[]>,
): Promise<(SectionFields & { rank: number })[]> {
  const fields = await keptSections(
    keep.fields,
    build,
    best.map((entry) => entry.id),
    async (ids) => (await read(ids)).map((row): [number, SectionFields] => [Number(row.id), row]),
  );
  return best.flatMap((entry) => {
    const row = fields.get(entry.id);
    return row ? [{ ...row, rank: entry.rank }] : [];
  });
}
