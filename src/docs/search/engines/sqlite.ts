import { sql, type Kysely } from 'kysely';
import type { Database } from '../../../storage/schema.ts';
import type { Candidate, FullTextIndex, MatchRequest } from './engine.ts';
import { anyWordFromPhraseRanks, type PhraseSyntax } from './sqlite-term-ranks.ts';
import { projectToken } from './project-token.ts';
import { literal, stem } from './stem.ts';

/** Entries per insert statement, well under SQLite's 32,766 bound parameters. */
const entriesPerInsert = 400;

/**
 * bm25() weights of the FTS5 columns: the project column only selects, a word in the page title
 * counts ten times one in the body, in the section heading five times.
 */
const columnWeights = sql.join([0, 10, 5, 1].map((weight) => sql.lit(weight)));

/**
 * Rows the full-text index hands over, best first, for each candidate wanted: it also holds
 * sections of other generations (a build in progress, retired pages not yet purged), which the join
 * then leaves out.
 */
const rowsPerCandidate = 4;

/**
 * How many times its rank a candidate that holds the query's words in order gets (see phraseFinder).
 * The phrase was a further FTS5 term, but bm25() weighs each term by reading every index entry of it
 * (a phrase's, position by position) in every statement, a fifth of a search's cost; found in the
 * hundred candidates instead, 4 ranked best on the quality corpus (bench/docs-quality-quire.ts):
 * recall@5 0.543 and MRR 0.442, where the FTS5 phrase term gave 0.526 and 0.435.
 */
const phraseBonus = 4;

/**
 * A character of a word, for phraseFinder: an ASCII letter or digit, or any character beyond Latin-1's
 * symbols (the letters of every other script, and the halves of a pair). Unicode property classes
 * (`\p{L}`) with the `u` flag matched eight times slower over the candidates' text, which is most of
 * what a search reads in JavaScript; this counts a few non-ASCII symbols (dashes, quotes) as letters.
 */
const letter = '0-9A-Za-z\\u00c0-\\uffff';

/**
 * Whether a candidate holds the query's words in order, in its page title, heading or text: each word
 * by its beginning (stem.ts) and any further letters, only spaces and punctuation between them.
 */
function phraseFinder(phrase: string[]): (candidate: Candidate) => boolean {
  const words = phrase.map((word) => `${literal(stem(word))}[${letter}]*`);
  const pattern = new RegExp(`(?<![${letter}])${words.join(`[^${letter}]+`)}`, 'i');
  return (candidate) => pattern.test(candidate.title) || pattern.test(candidate.heading) || pattern.test(candidate.text ?? '');
}

/** An FTS5 string: the words hold only letters and digits, but a quote would be doubled anyway. */
const quoted = (text: string) => `"${text.replaceAll('"', '""')}"`;

/** A word of the query as an FTS5 term: the last one also as a prefix (`conf*`). */
function term(word: string, prefix: string | null): string {
  return word === prefix ? `(${quoted(word)} OR ${quoted(word)}*)` : quoted(word);
}

/** Restricts `expression` to the project's sections (its token in the `project` column). */
function inProject(projectId: string, expression: string): string {
  return `project : ${quoted(projectToken(projectId))} AND ${expression}`;
}

/**
 * The project's sections holding every word, or any of them (OR), so long queries still find
 * something; bm25() sums over the terms that match, so a section with more of the words ranks
 * higher. The last word also counts as a prefix (`conf*`); the whole query as a phrase is looked
 * for in the candidates afterwards (see phraseBonus). With `within`, a section must also hold
 * one of those words: bm25() then costs only for the sections of the rare words, while the common
 * words still add to their rank (the rare words, named twice, weigh double, which only raises what
 * already decides the order).
 */
function matchExpression(request: MatchRequest): string {
  const { words, prefix } = request;
  const terms = words.filter((word) => word !== prefix).map((word) => term(word, prefix));
  if (prefix) terms.push(term(prefix, prefix));
  const matched = terms.join(request.every ? ' AND ' : ' OR ');
  const within = request.within && !request.every ? `(${request.within.map((word) => term(word, prefix)).join(' OR ')}) AND ` : '';
  const columns = request.headingsOnly ? '{title heading}' : '{title heading body}';
  return inProject(request.projectId, `${columns} : (${within}(${matched}))`);
}

/**
 * FTS5 over sections (see the 024 migration), contentless: rowid is docs_sections.id. The match
 * and the ranking run inside the index, restricted to the project, and only the best rows are
 * joined to their sections: joining every match first cost a lookup per matching section of every
 * project. Among rows of equal rank the index returns lower rowids, written earlier, first. With a
 * group filter every match is joined, since the best rows may all be in other groups.
 */
export const sqliteFullText: FullTextIndex = {
  headingsIndexed: false,
  countsCheaply: true,

  async add(trx, entries) {
    for (let start = 0; start < entries.length; start += entriesPerInsert) {
      const rows = entries
        .slice(start, start + entriesPerInsert)
        .map((entry) => sql`(${entry.sectionId}, ${projectToken(entry.projectId)}, ${entry.title}, ${entry.heading}, ${entry.text})`);
      await sql`insert into docs_search (rowid, project, title, heading, body) values ${sql.join(rows)}`.execute(trx);
    }
  },

  async remove(trx, sectionIds) {
    await sql`delete from docs_search where rowid in (${sectionIds})`.execute(trx);
  },

  async match(db, request) {
    // The any-word tier from the ranks kept per phrase (sqlite-term-ranks.ts), where it can answer.
    const rows = (await anyWordFromPhraseRanks(db, request, phraseSyntax)) ?? (await matchByStatement(db, request));
    const holdsPhrase = request.phrase ? phraseFinder(request.phrase) : null;
    if (holdsPhrase) for (const row of rows) if (holdsPhrase(row)) row.rank *= phraseBonus;
    return rows;
  },

  async frequencies(db, _owner, projectId, words, prefix) {
    if (words.length === 0) return [];
    // Counting walks each word's list of rows without ranking them: far cheaper than bm25().
    const counts = words.map(
      (word, index) =>
        sql`(select count(*) from docs_search where docs_search match ${inProject(projectId, `{title heading body} : ${term(word, prefix)}`)}) as ${sql.ref(`c${index}`)}`,
    );
    const result = await sql<Record<string, number>>`select ${sql.join(counts)}`.execute(db);
    const row = result.rows[0]!;
    return words.map((_, index) => Number(row[`c${index}`]));
  },
};

/** The match as one ranked statement: every tier, and the any-word tier when its ranks cannot be summed from the kept ones. */
export async function matchByStatement(db: Kysely<Database>, request: MatchRequest): Promise<Candidate[]> {
  const expression = matchExpression(request);
  const groups = request.groups ? sql`and p.group_name in (${sql.join(request.groups)})` : sql``;
  const rows = request.groups ? sql`` : sql`limit ${request.limit * rowsPerCandidate}`;
  const result = await sql<Candidate>`
      select p.path, p.route, p.title, p.group_name as "group", p.position, s.id, s.ordinal, s.anchor, s.heading, s.text, m.rank
      from (
        select rowid as id, -bm25(docs_search, ${columnWeights}) as rank
        from docs_search where docs_search match ${expression}
        order by rank desc, rowid ${rows}
      ) m
      cross join docs_sections s on s.id = m.id
      cross join docs_pages p on p.id = s.page_id
      where s.project_id = ${request.projectId} and ${request.visible} ${groups}
      order by m.rank desc, p.position, s.ordinal
      limit ${request.limit}`.execute(db);
  return result.rows;
}

/** FTS5's syntax for the ranks kept per phrase. */
const phraseSyntax: PhraseSyntax = {
  phrase: (word, asPrefix) => (asPrefix ? `${quoted(word)}*` : quoted(word)),
  inProject: (projectId, phrase) => inProject(projectId, `{title heading body} : (${phrase})`),
  weights: columnWeights,
};
