import { sql } from 'kysely';
import type { Candidate, FullTextIndex } from './engine.ts';

/** Entries per insert statement, well under SQLite's 32,766 bound parameters. */
const entriesPerInsert = 500;

/**
 * bm25() weights of the FTS5 columns: a word in the page title counts ten times one in the body, in
 * the section heading five times.
 */
const titleWeight = 10;
const headingWeight = 5;
const bodyWeight = 1;

/** An FTS5 string: the words hold only letters and digits, but a quote would be doubled anyway. */
const quoted = (text: string) => `"${text.replaceAll('"', '""')}"`;

/**
 * Any of the words (OR), so long queries still find something; bm25() sums over the terms that
 * match, so a section with more of the words ranks higher. The last word as a prefix (`conf*`) and
 * the whole query as a phrase are further terms, so a section that has them gains their weight.
 */
function matchExpression(words: string[], prefix: string | null, phrase: string[] | null): string {
  const terms = words.map(quoted);
  if (prefix) terms.push(`${quoted(prefix)}*`);
  if (phrase) terms.push(quoted(phrase.join(' ')));
  return terms.join(' OR ');
}

/**
 * FTS5 over sections (see the 024 migration), contentless: rowid is docs_sections.id. The query's
 * CROSS JOINs keep the match as the outer loop: left to itself, SQLite's planner walks the project's
 * sections by index and runs the whole match once per section (seconds on a few thousand).
 */
export const sqliteFullText: FullTextIndex = {
  async add(trx, entries) {
    for (let start = 0; start < entries.length; start += entriesPerInsert) {
      const rows = entries.slice(start, start + entriesPerInsert).map((entry) => sql`(${entry.sectionId}, ${entry.title}, ${entry.heading}, ${entry.text})`);
      await sql`insert into docs_search (rowid, title, heading, body) values ${sql.join(rows)}`.execute(trx);
    }
  },

  async remove(trx, sectionIds) {
    await sql`delete from docs_search where rowid in (${sectionIds})`.execute(trx);
  },

  async match(db, request) {
    const expression = matchExpression(request.words, request.prefix, request.phrase);
    const groups = request.groups ? sql`and p.group_name in (${sql.join(request.groups)})` : sql``;
    const result = await sql<Candidate>`
      select p.path, p.route, p.title, p.group_name as "group", p.position, s.ordinal, s.anchor, s.heading, s.markdown, s.text,
        -bm25(docs_search, ${sql.lit(titleWeight)}, ${sql.lit(headingWeight)}, ${sql.lit(bodyWeight)}) as rank
      from docs_search
      cross join docs_sections s on s.id = docs_search.rowid
      cross join docs_pages p on p.id = s.page_id
      where docs_search match ${expression} and s.project_id = ${request.projectId} and ${request.visible} ${groups}
      order by rank desc, p.position, s.ordinal
      limit ${request.limit}`.execute(db);
    return result.rows;
  },
};
