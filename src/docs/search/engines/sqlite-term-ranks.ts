import { sql, type Kysely } from 'kysely';
import type { Database } from '../../../storage/schema.ts';
import { AnswerCache } from '../../../lib/answer-cache.ts';
import type { Candidate, MatchRequest } from './engine.ts';

/**
 * The any-word match on SQLite from ranks kept per FTS5 phrase, so that a word's sections are ranked
 * once instead of at every search (postgres-term-ranks.ts does the same with ts_rank()).
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

/** Rows a required phrase may have for its ranks to be kept whole; beyond, the statement ranks them. */
const wholeTermSections = 4000;
/** Ranks kept per database handle, all phrases together. */
const maxKeptRanks = 2_000_000;

interface PhraseRanks {
  /** Every visible section holding the phrase (`whole`), or only those asked about so far. */
  whole: boolean;
  /** Section id → its rank for the phrase alone; 0 for a section asked about that does not hold it. */
  ranks: Map<number, number>;
  /** Page position and ordinal of each section (whole phrases only): the order of equal ranks. */
  order: Map<number, [number, number]>;
}

/** A candidate's fields, its text included (the words and the phrase are looked for in it, score.ts). */
type SectionFields = Omit<Candidate, 'rank' | 'found'>;

interface Kept {
  ranks: AnswerCache<PhraseRanks>;
  fields: AnswerCache<SectionFields>;
}

const kept = new WeakMap<object, Kept>();

function keptFor(owner: object): Kept {
  let found = kept.get(owner);
  if (!found) {
    found = {
      ranks: new AnswerCache<PhraseRanks>((ranks) => ranks.ranks.size + 1, { entries: 65_536, characters: maxKeptRanks }),
      fields: new AnswerCache<SectionFields>((row) => row.title.length + row.heading.length + (row.text?.length ?? 0) + row.path.length + 64, {
        entries: 262_144,
        characters: 64 * 1024 * 1024,
      }),
    };
    kept.set(owner, found);
  }
  return found;
}

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
  const keep = keptFor(index.owner);
  const averages = await sql<{ block: Uint8Array }>`select block from docs_search_data where id = 1`.execute(db);
  const statistics = Buffer.from(averages.rows[0]?.block ?? new Uint8Array()).toString('base64');
  const phrasesOf = (word: string) => (word === prefix ? [syntax.phrase(word, false), syntax.phrase(word, true)] : [syntax.phrase(word, false)]);
  const all = words.flatMap(phrasesOf);
  const required = (request.within ?? words).flatMap(phrasesOf);
  /** How many times each phrase is named in the statement's expression: the rarer words twice when required. */
  const times = new Map<string, number>();
  for (const phrase of all) times.set(phrase, (times.get(phrase) ?? 0) + 1);
  if (request.within) for (const phrase of required) times.set(phrase, (times.get(phrase) ?? 0) + 1);
  const keyOf = (phrase: string) => JSON.stringify([request.projectId, index.generation, index.builtAt, statistics, phrase]);
  const inNoSection = new Set(words.filter((word) => request.counts?.get(word) === 0).flatMap(phrasesOf));
  const ranked = (phrase: string) => sql`select rowid as id, -bm25(docs_search, ${syntax.weights}) as rank from docs_search
    where docs_search match ${syntax.inProject(request.projectId, phrase)}`;

  const ranksOf = new Map<string, PhraseRanks>();
  for (const phrase of new Set(required)) {
    let ranks = keep.ranks.get(keyOf(phrase));
    if (!ranks?.whole && inNoSection.has(phrase)) ranks = { whole: true, ranks: new Map(), order: new Map() };
    if (!ranks?.whole) {
      const rows = await sql<{ id: number; rank: number; position: number; ordinal: number }>`
        select m.id, m.rank, p.position, s.ordinal
        from (${ranked(phrase)}) m
        cross join docs_sections s on s.id = m.id
        cross join docs_pages p on p.id = s.page_id
        where s.project_id = ${request.projectId} and ${request.visible}
        limit ${wholeTermSections + 1}`.execute(db);
      if (rows.rows.length > wholeTermSections) return null;
      ranks = { whole: true, ranks: new Map(), order: new Map() };
      for (const row of rows.rows) {
        ranks.ranks.set(Number(row.id), Number(row.rank));
        ranks.order.set(Number(row.id), [Number(row.position), Number(row.ordinal)]);
      }
      keep.ranks.set(keyOf(phrase), ranks);
    }
    ranksOf.set(phrase, ranks);
  }
  const candidates = new Set<number>();
  for (const phrase of required) for (const id of ranksOf.get(phrase)!.ranks.keys()) candidates.add(id);
  if (candidates.size === 0) return [];

  for (const phrase of times.keys()) {
    if (ranksOf.has(phrase)) continue;
    const ranks = keep.ranks.get(keyOf(phrase)) ?? { whole: false, ranks: new Map(), order: new Map() };
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

  const orderOf = (id: number): [number, number] => {
    for (const phrase of required) {
      const order = ranksOf.get(phrase)!.order.get(id);
      if (order) return order;
    }
    return [0, 0];
  };
  const scored = [...candidates].map((id) => {
    let rank = 0;
    for (const [phrase, count] of times) rank += count * (ranksOf.get(phrase)!.ranks.get(id) ?? 0);
    const [position, ordinal] = orderOf(id);
    return { id, rank, position, ordinal };
  });
  scored.sort((a, b) => b.rank - a.rank || a.position - b.position || a.ordinal - b.ordinal);
  const best = scored.slice(0, request.limit);
  // A section's fields never change once written, so they are kept by id.
  const unread = best.map((entry) => entry.id).filter((id) => keep.fields.get(String(id)) === undefined);
  if (unread.length > 0) {
    const fields = await sql<SectionFields>`
      select p.path, p.route, p.title, p.group_name as "group", p.position, s.id, s.ordinal, s.anchor, s.heading, s.text
      from docs_sections s
      cross join docs_pages p on p.id = s.page_id
      where s.id in (${sql.join(unread)})`.execute(db);
    for (const row of fields.rows) keep.fields.set(String(Number(row.id)), row);
  }
  return best.flatMap((entry) => {
    const row = keep.fields.get(String(entry.id));
    return row ? [{ ...row, rank: entry.rank }] : [];
  });
}
