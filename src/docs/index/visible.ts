import { sql, type Expression, type RawBuilder, type SqlBool } from 'kysely';

/** The generation a project's readers see, as a subquery: the statement reads it with its own snapshot. */
export function currentGeneration(projectId: string): RawBuilder<number> {
  return sql<number>`(select generation from docs_state where project_id = ${projectId})`;
}

/**
 * Rows of `table` (docs_pages or docs_sections, or their alias) that generation `generation` holds:
 * written by it or before, and not retired by it or before.
 */
export function visibleAt(table: string, generation: Expression<number> | number): RawBuilder<SqlBool> {
  const first = sql.ref(`${table}.first_generation`);
  const retired = sql.ref(`${table}.retired_generation`);
  return sql<SqlBool>`(${first} <= ${generation} and (${retired} is null or ${retired} > ${generation}))`;
}
