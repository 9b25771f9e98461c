import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Database } from '../../../storage/schema.ts';
import type { Candidate, MatchRequest } from './engine.ts';
import { bestCandidates, keptRanksFor, wholeRanks, wholeTermSections, withFields, type SectionFields, type TermRanks } from './kept-ranks.ts';
import { projectToken } from './project-token.ts';

/**
 * The any-word match on PostgreSQL from ranks kept per query term (kept-ranks.ts), so that a term's
 * sections are ranked once per generation instead of at every search.
 *
 * ts_rank() of an OR query is a sum over its distinct terms: each term present in a section adds what
 * the section's positions of it give, and the sum is divided by the number of distinct terms (PostgreSQL's
 * `calc_rank_or`, without normalization). So the rank of a section for any words is the sum of its
 * ranks for each term alone, divided by the terms' count: a term's ranks, read once for the project's
 * generation (which never changes once readers see it), serve every later query that holds the term.
 * The any-word statement ranked every section holding one of the rarer words on every search (ts_rank()
 * reads the section's whole vector), about 15 ms of the database's time per question in the assistant
 * benchmark; here it is a sum over the kept ranks.
 *
 * Terms of which a section must hold one (the rarer words, `within`) are kept whole: every section
 * holding them, up to `wholeTermSections`. A more common term only adds to the rank of those sections, so
 * only its ranks in the sections asked about are read and kept. A request this cannot answer exactly (a
 * group filter, a word the text search configuration does not read as one term, a required term held by
 * too many sections) is left to the engine's statement (null).
 */

/** One term, as the text of a tsquery: a quoted lexeme, maybe a prefix (`:*`), nothing else. */
const singleTerm = /^'(?:[^']|'')+'(?::\*)?$/;

/** A term's lexeme: its text without the quotes and the prefix mark. */
const lexemeOf = (term: string) => term.replace(/:\*$/, '').slice(1, -1).replaceAll("''", "'");

/** The tsquery operand a query word is matched as in the any-word match: the last word (`prefix`) as a prefix only. */
export const operandOf = (word: string, prefix: string | null) => (word === prefix ? `${word}:*` : word);

/** Keeps, under `owner` (a database handle), what `to_tsquery` made of each operand: its term, or null when it is not one. */
export function keepTerms(owner: object, read: { operand: string; term: string }[]): Map<string, string | null> {
  const { terms } = keptRanksFor(owner);
  const made = new Map<string, string | null>();
  for (const { operand, term } of read) {
    const single = singleTerm.test(term) ? term : null;
    terms.set(operand, single);
    made.set(operand, single);
  }
  return made;
}

/**
 * Each of `operands` as the tsquery term it reads as, or null. The search's word counts have usually
 * read them already, in their own statement (postgres.ts's frequencies); the others are read here.
 */
async function termsOf(db: Kysely<Database>, owner: object, language: RawBuilder<unknown>, operands: string[]) {
  const terms = new Map<string, string | null>();
  const missing: string[] = [];
  const kept = keptRanksFor(owner).terms;
  for (const operand of operands) {
    const known = kept.get(operand);
    if (known === undefined) missing.push(operand);
    else terms.set(operand, known);
  }
  if (missing.length > 0) {
    const rows = await sql<{ operand: string; term: string }>`
      select operand, to_tsquery(${language}, operand)::text as term from unnest(${missing}::text[]) as operand`.execute(db);
    for (const [operand, term] of keepTerms(owner, rows.rows)) terms.set(operand, term);
  }
  return terms;
}

/**
 * The any-word candidates of `request` (its `every` false), ranked as the engine's statement ranks them,
 * or null when that statement must answer. `language` and `weights` are the engine's.
 */
export async function anyWordFromTermRanks(
  db: Kysely<Database>,
  request: MatchRequest,
  language: RawBuilder<unknown>,
  weights: RawBuilder<unknown>,
): Promise<Candidate[] | null> {
  if (request.groups !== null || request.every || request.headingsOnly || request.oneInHeadings) return null;
  const { words, prefix, index } = request;
  const keep = keptRanksFor(index.owner);
  // The last word as a prefix only: it matches the whole word too, and the statement's query names it so (postgres.ts).
  const terms = await termsOf(
    db,
    index.owner,
    language,
    words.map((word) => operandOf(word, prefix)),
  );
  if ([...terms.values()].some((term) => term === null)) return null;
  /** The term a query word reads as. */
  const termOf = (word: string) => terms.get(operandOf(word, prefix))!;
  const distinct = [...new Set(words.map(termOf))];
  // ts_rank() counts a lexeme once, prefix or not (its terms are told apart by their text alone): a word and the
  // prefix that stem to one lexeme are a single term there, whichever of the two its sort kept. Left to it.
  const lexemes = new Set(distinct.map(lexemeOf));
  if (lexemes.size < distinct.length) return null;
  const required = new Set((request.within ?? words).map(termOf));
  const keyOf = (term: string) => JSON.stringify([request.projectId, index.generation, index.builtAt, term]);
  const project = sql`cast(${projectToken(request.projectId)} as tsquery)`;

  // Every section of each required term, read once per generation (ranked by the engine, as alone in a query).
  // A word the search counted in no section (a version number, a name the docs never use) holds none: not read.
  const inNoSection = new Set(words.filter((word) => request.counts?.get(word) === 0).map(termOf));
  const ranksOf = new Map<string, TermRanks>();
  for (const term of required) {
    let ranks = keep.ranks.get(keyOf(term));
    if (!ranks?.whole && inNoSection.has(term)) ranks = wholeRanks([]);
    if (!ranks?.whole) {
      const rows = await sql<{ id: number | string; position: number; ordinal: number; rank: number }>`
        select s.id, p.position, s.ordinal, ts_rank(${weights}, f.vector, cast(${term} as tsquery)) as rank
        from docs_search f
        join docs_sections s on s.id = f.section_id
        join docs_pages p on p.id = s.page_id
        where f.vector @@ (cast(${term} as tsquery) && ${project}) and f.project_id = ${request.projectId} and ${request.visible}
        limit ${wholeTermSections + 1}`.execute(db);
      if (rows.rows.length > wholeTermSections) return null;
      // Read as float4, as ts_rank() returns it.
      ranks = wholeRanks(rows.rows, Math.fround);
      keep.ranks.set(keyOf(term), ranks);
    }
    ranksOf.set(term, ranks);
  }
  const candidates = new Set<number>();
  for (const term of required) for (const id of ranksOf.get(term)!.ranks.keys()) candidates.add(id);
  if (candidates.size === 0) return [];

  // The other terms' ranks in those sections: only the sections not asked about before are read.
  for (const term of distinct) {
    if (required.has(term)) continue;
    const ranks: TermRanks = keep.ranks.get(keyOf(term)) ?? { whole: false, ranks: new Map(), order: new Map() };
    const unknown = ranks.whole ? [] : [...candidates].filter((id) => !ranks.ranks.has(id));
    if (unknown.length > 0) {
      const rows = await sql<{ id: number | string; rank: number }>`
        select f.section_id as id, ts_rank(${weights}, f.vector, cast(${term} as tsquery)) as rank
        from docs_search f
        where f.section_id = any(${unknown}::bigint[]) and f.vector @@ cast(${term} as tsquery)`.execute(db);
      for (const id of unknown) ranks.ranks.set(id, 0);
      for (const row of rows.rows) ranks.ranks.set(Number(row.id), Math.fround(Number(row.rank)));
    }
    // Set again after growing, so the cache counts what it now holds.
    keep.ranks.set(keyOf(term), ranks);
    ranksOf.set(term, ranks);
  }

  // Summed as calc_rank_or() sums: in single precision, term by term in the order of their lexemes' bytes,
  // then divided by the terms' count; so sections that tie there (ordered by page position) tie here too.
  const summed = [...distinct].sort((a, b) => Buffer.compare(Buffer.from(lexemeOf(a)), Buffer.from(lexemeOf(b))));
  const summedRanks = summed.map((term) => ranksOf.get(term)!.ranks);
  const rankOf = (id: number) => {
    let sum = 0;
    for (const ranks of summedRanks) sum = Math.fround(sum + (ranks.get(id) ?? 0));
    return Math.fround(sum / summedRanks.length);
  };
  const best = bestCandidates(candidates, required, ranksOf, rankOf, request.limit);
  const rows = await withFields(
    keep,
    { ...index, projectId: request.projectId },
    best,
    async (ids) =>
      (
        await sql<SectionFields>`
        select p.path, p.route, p.title, p.group_name as "group", p.position, s.id, s.ordinal, s.anchor, s.heading
        from docs_sections s
        join docs_pages p on p.id = s.page_id
        where s.id = any(${ids}::bigint[])`.execute(db)
      ).rows,
  );
  /** How many of the words a section holds, each as a word or (the last) as a prefix, as the statement counts them. */
  const found = (id: number) => words.filter((word) => (ranksOf.get(termOf(word))!.ranks.get(id) ?? 0) > 0).length;
  return rows.map((row) => ({ ...row, found: found(Number(row.id)) }));
}
