import { sql } from 'kysely';
import type { Candidate, FullTextIndex, MatchRequest } from './engine.ts';
import { projectToken } from './project-token.ts';

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
 * higher. The last word also counts as a prefix (`conf*`), and the whole query as a phrase is a
 * further term, so a section that has it gains its weight. With `within`, a section must also hold
 * one of those words: bm25() then costs only for the sections of the rare words, while the common
 * words still add to their rank (the rare words, named twice, weigh double, which only raises what
 * already decides the order).
 */
function matchExpression(request: MatchRequest): string {
  const { words, prefix, phrase } = request;
  const terms = words.filter((word) => word !== prefix).map((word) => term(word, prefix));
  if (prefix) terms.push(term(prefix, prefix));
  const matched = terms.join(request.every ? ' AND ' : ' OR ');
  const all = phrase ? `(${matched}) OR ${quoted(phrase.join(' '))}` : matched;
  const within = request.within && !request.every ? `(${request.within.map((word) => term(word, prefix)).join(' OR ')}) AND ` : '';
  const columns = request.headingsOnly ? '{title heading}' : '{title heading body}';
  return inProject(request.projectId, `${columns} : (${within}(${all}))`);
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
  },

  async frequencies(db, projectId, words, prefix) {
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
