import { sql, type Kysely } from 'kysely';
import type { Database } from '../../../storage/schema.ts';
import type { Candidate, MatchRequest } from './engine.ts';
import { bestCandidates, keptRanksFor, wholeRanks, wholeTermSections, withFields, type SectionFields, type TermRanks } from './kept-ranks.ts';

/**
 * The any-word match on SQLite from ranks kept per FTS5 phrase (kept-ranks.ts), so that a word's sections
 * are ranked once instead of at every search (postgres-term-ranks.ts does the same with ts_rank()).
 *
 * FTS5's bm25() is a sum over the phrases of the match expression: each phrase adds, for each row, its
 * inverse document frequency times a function of its weighted hits in the row and the row's length.
 * Both the frequency and the average length are the whole index's (every project, every generation),
 * so a phrase's ranks are kept under the index's statistics as FTS5 stores them (the averages record,
 * rowid 1 of `docs_search_data`), read once per search: any write to the index names new ones.
 *
 * The statement's expression names the rarer words twice when they are required (`within`), so they
 * count twice; the last word is two phrases (`"conf" OR "conf"*`). Both are summed here the same way.
 * A group filter, or a required phrase in more than `wholeTermSections` rows, is left to the statement.
 */

export interface PhraseSyntax {
  /** A phrase as FTS5 reads it: `"word"`, or `"word"*` for a prefix. */
  phrase(word: string, asPrefix: boolean): string;
  /** `expression` within the project's sections and the ranked columns. */
  inProject(projectId: string, expression: string): string;
  /** bm25()'s column weights. */
  weights: ReturnType<typeof sql.join>;
}

/**
 * The any-word candidates of `request` (its `every` false), ranked as the engine's statement ranks them
 * before its phrase bonus, or null when that statement must answer.
 */
export async function anyWordFromPhraseRanks(db: Kysely<Database>, request: MatchRequest, syntax: PhraseSyntax): Promise<Candidate[] | null> {
  if (request.groups !== null || request.every || request.headingsOnly || request.oneInHeadings) return null;
  const { words, prefix, index } = request;
  const keep = keptRanksFor(index.owner);
  const averages = await sql<{ block: Uint8Array }>`select block from docs_search_data where id = 1`.execute(db);
  const statistics = Buffer.from(averages.rows[0]?.block ?? new Uint8Array()).toString('base64');
  const phrasesOf = (word: string) => (word === prefix ? [syntax.phrase(word, false), syntax.phrase(word, true)] : [syntax.phrase(word, false)]);
  const required = (request.within ?? words).flatMap(phrasesOf);
  /** How many times each phrase is named in the statement's expression: the rarer words twice when required. */
  const times = new Map<string, number>();
  for (const phrase of words.flatMap(phrasesOf)) times.set(phrase, (times.get(phrase) ?? 0) + 1);
  if (request.within) for (const phrase of required) times.set(phrase, (times.get(phrase) ?? 0) + 1);
  const keyOf = (phrase: string) => JSON.stringify([request.projectId, index.generation, index.builtAt, statistics, phrase]);
  const inNoSection = new Set(words.filter((word) => request.counts?.get(word) === 0).flatMap(phrasesOf));
  const ranked = (phrase: string) => sql`select rowid as id, -bm25(docs_search, ${syntax.weights}) as rank from docs_search
    where docs_search match ${syntax.inProject(request.projectId, phrase)}`;

  const ranksOf = new Map<string, TermRanks>();
  for (const phrase of new Set(required)) {
    let ranks = keep.ranks.get(keyOf(phrase));
    if (!ranks?.whole && inNoSection.has(phrase)) ranks = wholeRanks([]);
    if (!ranks?.whole) {
      const rows = await sql<{ id: number; rank: number; position: number; ordinal: number }>`
        select m.id, m.rank, p.position, s.ordinal
        from (${ranked(phrase)}) m
        cross join docs_sections s on s.id = m.id
        cross join docs_pages p on p.id = s.page_id
        where s.project_id = ${request.projectId} and ${request.visible}
        limit ${wholeTermSections + 1}`.execute(db);
      if (rows.rows.length > wholeTermSections) return null;
      ranks = wholeRanks(rows.rows);
      keep.ranks.set(keyOf(phrase), ranks);
    }
    ranksOf.set(phrase, ranks);
  }
  const candidates = new Set<number>();
  for (const phrase of required) for (const id of ranksOf.get(phrase)!.ranks.keys()) candidates.add(id);
  if (candidates.size === 0) return [];

  // The other phrases' ranks in those sections: only the sections not asked about before are read.
  for (const phrase of times.keys()) {
    if (ranksOf.has(phrase)) continue;
    const ranks: TermRanks = keep.ranks.get(keyOf(phrase)) ?? { whole: false, ranks: new Map(), order: new Map() };
    const unknown = ranks.whole ? [] : [...candidates].filter((id) => !ranks.ranks.has(id));
    for (let start = 0; start < unknown.length; start += 500) {
      const some = unknown.slice(start, start + 500);
      const rows = await sql<{ id: number; rank: number }>`${ranked(phrase)} and rowid in (${sql.join(some)})`.execute(db);
      for (const id of some) ranks.ranks.set(id, 0);
      for (const row of rows.rows) ranks.ranks.set(Number(row.id), Number(row.rank));
    }
    keep.ranks.set(keyOf(phrase), ranks);
    ranksOf.set(phrase, ranks);
  }

  const weighted = [...times].map(([phrase, count]) => ({ count, ranks: ranksOf.get(phrase)!.ranks }));
  const rankOf = (id: number) => {
    let rank = 0;
    for (const { count, ranks } of weighted) rank += count * (ranks.get(id) ?? 0);
    return rank;
  };
  const best = bestCandidates(candidates, required, ranksOf, rankOf, request.limit);
  return withFields(
    keep,
    { ...index, projectId: request.projectId },
    best,
    async (ids) =>
      (
        await sql<SectionFields>`
        select p.path, p.route, p.title, p.group_name as "group", p.position, s.id, s.ordinal, s.anchor, s.heading, s.text
        from docs_sections s
        cross join docs_pages p on p.id = s.page_id
        where s.id in (${sql.join(ids)})`.execute(db)
      ).rows,
  );
}
