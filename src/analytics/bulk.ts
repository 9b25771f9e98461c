import { CompiledQuery, type Kysely } from 'kysely';
import type { DialectProfile } from '../storage/dialect.ts';
import type { Database } from '../storage/schema.ts';

export type EventInsert = Database['analytics_events'];

const columns = ['project_key', 'at', 'path_id', 'agent_id', 'visitor_id', 'markdown', 'status', 'referrer', 'event_key'] as const;
const columnList = columns.join(', ');
/** Keyed (imported) events may have been stored before: those rows are skipped, the rest reported back. */
const keyedTail = ' on conflict do nothing returning event_key';

/** SQLite binds one parameter per value: rows go in statements of 512, 256, … rows, so a handful of texts is prepared once. */
function sqliteStatements(rows: EventInsert[], keyed: boolean): CompiledQuery[] {
  const statements: CompiledQuery[] = [];
  const row = `(${columns.map(() => '?').join(', ')})`;
  for (let start = 0; start < rows.length; ) {
    let size = 512;
    while (size > rows.length - start) size >>= 1;
    const parameters: unknown[] = [];
    for (let index = start; index < start + size; index++) for (const column of columns) parameters.push(rows[index][column]);
    statements.push(CompiledQuery.raw(`insert into analytics_events (${columnList}) values ${new Array(size).fill(row).join(', ')}${keyed ? keyedTail : ''}`, parameters));
    start += size;
  }
  return statements;
}

const postgresTypes = ['bigint', 'bigint', 'bigint', 'bigint', 'bigint', 'smallint', 'smallint', 'text', 'text'];

/** PostgreSQL takes one array per column and unnests them: one statement and nine parameters for any number of rows. */
function postgresStatements(rows: EventInsert[], keyed: boolean): CompiledQuery[] {
  const arrays = columns.map((column) => rows.map((row) => row[column]));
  const unnest = postgresTypes.map((type, index) => `$${index + 1}::${type}[]`).join(', ');
  return [CompiledQuery.raw(`insert into analytics_events (${columnList}) select * from unnest(${unnest})${keyed ? keyedTail : ''}`, arrays)];
}

const statementsFor: Record<DialectProfile['name'], typeof sqliteStatements> = { sqlite: sqliteStatements, postgres: postgresStatements };

/**
 * Inserts raw events with prepared multi-row statements instead of the query builder, which spends
 * more time building a thousand-row insert than the database spends storing it. Returns whether a
 * row's event key was new (rows without a key always are).
 */
export async function insertEvents(trx: Kysely<Database>, profile: DialectProfile, rows: EventInsert[]): Promise<(eventKey: string | null) => boolean> {
  const keyed = rows.some((row) => row.event_key !== null);
  const fresh = new Set<string>();
  for (const statement of statementsFor[profile.name](rows, keyed)) {
    const result = await trx.executeQuery<{ event_key: string | null }>(statement);
    if (keyed) for (const row of result.rows) if (row.event_key !== null) fresh.add(row.event_key);
  }
  return (eventKey) => eventKey === null || fresh.has(eventKey);
}
