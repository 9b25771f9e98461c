import { sql, type Kysely } from 'kysely';
import type { Database } from '../../../storage/schema.ts';
import type { Candidate, FullTextIndex, MatchRequest } from './engine.ts';
import { anyWordFromTermRanks, keepTerms, operandOf } from './postgres-term-ranks.ts';
import { projectToken } from './project-token.ts';

/** Entries per insert statement, well under PostgreSQL's 65,535 bound parameters. */
const entriesPerInsert = 1000;

/** Stemming of the index and of queries, stop words kept (see the 024 migration); they must be the same. */
const language = sql.lit('docs_english');

/**
 * ts_rank() weights of the labels {D, C, B, A}: A the page title, B the section heading, C the body,
 * in the proportions SQLite's bm25() weights use (10, 5, 1); D, the project lexeme, is never in a
 * ranked query.
 */
const weights = sql`'{0, 0.1, 0.5, 1.0}'::float4[]`;

/**
 * How many times its rank a section that holds the whole query as a phrase gets. ts_rank() has no
 * inverse document frequency to lift the words that matter, so the phrase carries more than bm25's
 * phrase term does on SQLite: 8 ranks best on the quality corpus (bench/docs-quality-quire.ts), 2
 * fell below the reference.
 */
const phraseBonus = 8;

/** Sections ranked on titles and headings alone of which the phrase may lift the best, per candidate wanted. */
const headingsRankedPerCandidate = 4;

/**
 * Every word (AND) or any of them (OR), the last one also as a prefix (`conf:*`), in the title and
 * heading only (labels A and B: `word:AB`) or anywhere. The words hold only letters and digits (see
 * ../terms.ts), so they carry no tsquery operators.
 */
function wordsQuery(request: MatchRequest): string {
  const { words, prefix } = request;
  const labels = request.headingsOnly ? 'AB' : '';
  const labelled = (word: string) => (labels ? `${word}:${labels}` : word);
  const terms = words.filter((word) => word !== prefix).map(labelled);
  // Any word: the prefix alone, which matches the whole word too. ts_rank() counts a term once however often
  // the query names it, ignoring `:*`, so `word | word:*` was ranked as one of the two, whichever its sort
  // kept; as the prefix alone it is always the prefix, as the ranks kept per term sum it (postgres-term-ranks.ts).
  if (prefix) terms.push(request.every ? `(${labelled(prefix)} | ${prefix}:*${labels})` : `${prefix}:*${labels}`);
  return terms.join(request.every ? ' & ' : ' | ');
}

/** Any of `words` anywhere in a section, the last one also as a prefix. */
function anyOf(words: string[], prefix: string | null): string {
  return words.map((word) => (word === prefix ? `(${word} | ${word}:*)` : word)).join(' | ');
}

/**
 * How many of the request's words a section holds, each matched as the index stems it (the last also
 * as a prefix): counted on the tsvector the rank reads anyway, so the candidates' text, megabytes
 * over the connection for a hundred sections of a large site, is never sent.
 */
function wordsFound(request: MatchRequest, vector = sql.ref('c.vector')) {
  const each = request.words.map((word) => sql`(${vector} @@ to_tsquery(${language}, ${anyOf([word], request.prefix)}))::int`);
  return sql.join(each, sql` + `);
}

/**
 * The columns that count the project's sections holding each of `words` (`c0`, `c1`, …) and give each word's
 * term as the any-word match names it (`t0`, `t1`, …): that match needs the terms next (postgres-term-ranks.ts),
 * so they come in the same round trip.
 */
function frequencyColumns(projectId: string, words: string[], prefix: string | null) {
  const project = sql`cast(${projectToken(projectId)} as tsquery)`;
  const counts = words.map(
    (word, index) =>
      sql`(select count(*) from docs_search f where f.vector @@ (to_tsquery(${language}, ${anyOf([word], prefix)}) && ${project}) and f.project_id = ${projectId}) as ${sql.ref(`c${index}`)}`,
  );
  const terms = words.map((word, index) => sql`to_tsquery(${language}, ${operandOf(word, prefix)})::text as ${sql.ref(`t${index}`)}`);
  return [...counts, ...terms];
}

/** The counts of a row with frequencyColumns, the words' terms kept under `owner` on the way. */
function countsOfRow(owner: object, row: Record<string, unknown>, words: string[], prefix: string | null): number[] {
  keepTerms(
    owner,
    words.map((word, index) => ({ operand: operandOf(word, prefix), term: String(row[`t${index}`]) })),
  );
  return words.map((_, index) => Number(row[`c${index}`]));
}

/** tsvector over sections, in `docs_search` beside them (deleted with them through the foreign key). */
export const postgresFullText: FullTextIndex = {
  headingsIndexed: true,
  countsCheaply: false,

  async add(trx, entries) {
    for (let start = 0; start < entries.length; start += entriesPerInsert) {
      const rows = entries.slice(start, start + entriesPerInsert).map((entry) => {
        const title = sql`setweight(to_tsvector(${language}, ${entry.title}), 'A')`;
        const heading = sql`setweight(to_tsvector(${language}, ${entry.heading}), 'B')`;
        const project = sql`cast(${projectToken(entry.projectId)} as tsvector)`;
        return sql`(${entry.sectionId}, ${entry.projectId}, ${title} || ${heading} || setweight(to_tsvector(${language}, ${entry.text}), 'C') || ${project}, ${title} || ${heading} || ${project})`;
      });
      await sql`insert into docs_search (section_id, project_id, vector, headings) values ${sql.join(rows)}`.execute(trx);
    }
  },

  async remove() {
    // The foreign key's `on delete cascade` removes a section's entry with the section.
  },

  async match(db, request) {
    // The any-word tier from the ranks kept per term (postgres-term-ranks.ts), where it can answer.
    return (await anyWordFromTermRanks(db, request, language, weights)) ?? matchByStatement(db, request);
  },

  async frequencies(db, owner, projectId, words, prefix) {
    if (words.length === 0) return [];
    const result = await sql<Record<string, unknown>>`select ${sql.join(frequencyColumns(projectId, words, prefix))}`.execute(db);
    return countsOfRow(owner, result.rows[0]!, words, prefix);
  },

  async stateWithFrequencies(db, owner, projectId, words, prefix) {
    const columns = words.length > 0 ? sql`, ${sql.join(frequencyColumns(projectId, words, prefix))}` : sql``;
    const result = await sql<Record<string, unknown>>`
      select s.generation, s.built_at ${columns} from docs_state s where s.project_id = ${projectId}`.execute(db);
    const row = result.rows[0];
    if (!row) return null;
    return {
      generation: Number(row.generation),
      builtAt: row.built_at === null ? null : Number(row.built_at),
      counts: words.length > 0 ? countsOfRow(owner, row, words, prefix) : [],
    };
  },
};

/** The match as one ranked statement: every tier, and the any-word tier when its ranks cannot be summed from the kept ones. */
export async function matchByStatement(db: Kysely<Database>, request: MatchRequest): Promise<Candidate[]> {
  const query = sql`to_tsquery(${language}, ${wordsQuery(request)})`;
  const project = sql`cast(${projectToken(request.projectId)} as tsquery)`;
  const phrase = request.phrase ? sql`phraseto_tsquery(${language}, ${request.phrase.join(' ')})` : null;
  const bonus = phrase ? sql`case when f.vector @@ ${phrase} then ${sql.lit(phraseBonus)} else 1 end` : sql`1`;
  const groups = request.groups ? sql`and p.group_name in (${sql.join(request.groups)})` : sql``;
  // With `within`, the index selects only the sections holding one of the rarer words, and
  // ts_rank() runs on those alone, still over every word of the query.
  const selected = request.within && !request.every ? sql`to_tsquery(${language}, ${anyOf(request.within, request.prefix)})` : query;
  // Words in titles and headings are looked up in `headings` (see the 042 migration), where the
  // index match is exact: the same sections as the labels `:AB` select in `vector`.
  const inHeadings = request.headingsOnly
    ? wordsQuery({ ...request, headingsOnly: false })
    : request.oneInHeadings
      ? anyOf(request.words, request.prefix)
      : null;
  const matched = request.headingsOnly
    ? sql`f.headings @@ (to_tsquery(${language}, ${inHeadings}) && ${project})`
    : inHeadings !== null
      ? sql`f.headings @@ (to_tsquery(${language}, ${inHeadings}) && ${project}) and f.vector @@ (${selected} && ${project})`
      : sql`f.vector @@ (${selected} && ${project})`;
  // The words are counted after the limit, on the best sections only: in the ranked select they would
  // be computed for every matching section before the sort.
  if (request.headingsOnly) {
    // Ranked on `headings`, a few words per section, rather than on `vector`, which ts_rank() reads and
    // decompresses whole for every matching section (a common word's thousands): the query's labels
    // (`:AB`) did not keep ts_rank() from weighing the body's positions too, so the rank differs a
    // little, and on the quality corpus (bench/docs-quality-quire.ts) it ranked as well or slightly
    // better. The phrase, looked for in the whole text, then lifts the best sections only, chosen
    // from several times as many as wanted.
    const result = await sql<Candidate>`
        select c.path, c.route, c.title, c."group", c.position, c.id, c.ordinal, c.anchor, c.heading, ${wordsFound(request, sql.ref('f.vector'))} as found, c.rank * ${bonus} as rank
        from (
          select p.path, p.route, p.title, p.group_name as "group", p.position, s.id, s.ordinal, s.anchor, s.heading, f.section_id,
            ts_rank(${weights}, f.headings, ${query}) as rank
          from docs_search f
          join docs_sections s on s.id = f.section_id
          join docs_pages p on p.id = s.page_id
          where ${matched} and f.project_id = ${request.projectId} and ${request.visible} ${groups}
          order by rank desc, p.position, s.ordinal
          limit ${request.limit * headingsRankedPerCandidate}
        ) c
        join docs_search f on f.section_id = c.section_id
        order by rank desc, c.position, c.ordinal
        limit ${request.limit}`.execute(db);
    return result.rows;
  }
  const result = await sql<Candidate>`
      select c.path, c.route, c.title, c."group", c.position, c.id, c.ordinal, c.anchor, c.heading, ${wordsFound(request)} as found, c.rank
      from (
        select p.path, p.route, p.title, p.group_name as "group", p.position, s.id, s.ordinal, s.anchor, s.heading, f.vector,
          ts_rank(${weights}, f.vector, ${query}) * ${bonus} as rank
        from docs_search f
        join docs_sections s on s.id = f.section_id
        join docs_pages p on p.id = s.page_id
        where ${matched} and f.project_id = ${request.projectId} and ${request.visible} ${groups}
        order by rank desc, p.position, s.ordinal
        limit ${request.limit}
      ) c
      order by c.rank desc, c.position, c.ordinal`.execute(db);
  return result.rows;
}
