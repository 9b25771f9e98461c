import { CompiledQuery, type Kysely } from 'kysely';
import type { DialectProfile } from '../../storage/dialect.ts';
import type { Database } from '../../storage/schema.ts';
import { copyValue } from '../../storage/postgres/copy.ts';

export type EventInsert = Database['analytics_events'];

const columns = [
  'project_key',
  'at',
  'path_id',
  'agent_id',
  'visitor_id',
  'markdown',
  'status',
  'referrer',
  'event_key',
  'verification',
  'referrer_id',
  'counted',
  'country',
  'source_id',
  'entry',
] as const;
const columnList = columns.join(', ');
/** Keyed (imported) events may have been stored before: those rows are skipped, the rest reported back. */
const keyedTail = ' on conflict do nothing returning event_key';

/** Splits `count` items into runs of 512, 256, … so each run's statement text is one of a few. */
function runs(count: number): [number, number][] {
  const result: [number, number][] = [];
  for (let start = 0; start < count;) {
    let size = 512;
    while (size > count - start) size >>= 1;
    result.push([start, size]);
    start += size;
  }
  return result;
}

const texts = new Map<string, string>();
const cachedText = (name: string, build: () => string) => texts.get(name) ?? texts.set(name, build()).get(name)!;

const rowPlaceholders = `(${columns.map(() => '?').join(', ')})`;

/** Without array parameters, one parameter per value: rows go in statements of 512, 256, … rows, so a handful of texts is prepared once. */
function multiRowStatements(rows: EventInsert[], keyed: boolean, returning = keyed): CompiledQuery[] {
  return runs(rows.length).map(([start, size]) => {
    const tail = keyed ? (returning ? keyedTail : ' on conflict do nothing') : '';
    const text = cachedText(
      `events ${size} ${tail}`,
      () => `insert into analytics_events (${columnList}) values ${new Array(size).fill(rowPlaceholders).join(', ')}${tail}`,
    );
    const parameters: unknown[] = [];
    for (let index = start; index < start + size; index++) {
      const row = rows[index];
      parameters.push(
        row.project_key,
        row.at,
        row.path_id,
        row.agent_id,
        row.visitor_id,
        row.markdown,
        row.status,
        row.referrer,
        row.event_key,
        row.verification,
        row.referrer_id,
        row.counted,
        row.country,
        row.source_id,
        row.entry,
      );
    }
    return CompiledQuery.raw(text, parameters);
  });
}

const columnTypes = [
  'bigint',
  'bigint',
  'bigint',
  'bigint',
  'bigint',
  'smallint',
  'smallint',
  'text',
  'text',
  'smallint',
  'bigint',
  'smallint',
  'text',
  'bigint',
  'smallint',
];

/** With array parameters, one array per column, unnested: one statement and one parameter per column for any number of rows. */
function unnestStatements(rows: EventInsert[], keyed: boolean): CompiledQuery[] {
  const arrays = columns.map((column) => rows.map((row) => row[column]));
  const unnest = columnTypes.map((type, index) => `$${index + 1}::${type}[]`).join(', ');
  return [CompiledQuery.raw(`insert into analytics_events (${columnList}) select * from unnest(${unnest})${keyed ? keyedTail : ''}`, arrays)];
}

/** A value COPY reads as null or a number: `\N`, or the number's digits. */
const copyNumber = (value: number | null) => (value === null ? '\\N' : value);

/**
 * Where the database loads rows by COPY, unkeyed events go that way: one statement, the rows as text,
 * written one template per row (the same columns as `columns`; only the two text columns need escaping).
 */
function copyStatements(rows: EventInsert[]): CompiledQuery[] {
  let text = '';
  for (const row of rows) {
    text += `${row.project_key}\t${row.at}\t${row.path_id}\t${row.agent_id}\t${row.visitor_id}\t${row.markdown}\t${copyNumber(row.status)}\t${copyValue(row.referrer)}\t${copyValue(row.event_key)}\t${row.verification}\t${copyNumber(row.referrer_id)}\t${copyNumber(row.counted)}\t${copyValue(row.country)}\t${copyNumber(row.source_id)}\t${row.entry}\n`;
  }
  return [CompiledQuery.raw(`copy analytics_events (${columnList}) from stdin`, [text])];
}

/**
 * Inserts raw events with prepared multi-row statements instead of the query builder, which spends
 * more time building a thousand-row insert than the database spends storing it. Returns whether a
 * row's event key was new (rows without a key always are), asked once per row in order.
 */
export async function insertEvents(trx: Kysely<Database>, profile: DialectProfile, rows: EventInsert[]): Promise<(eventKey: string | null) => boolean> {
  const keyed = rows.some((row) => row.event_key !== null);
  // SQLite: writers take turns, and its rows have rowids.
  if (keyed && profile.concurrentWrites === 1 && !profile.arrayParameters) return insertKeyedInTurn(trx, rows);
  const fresh = new Set<string>();
  const statements = profile.copyIn && !keyed ? copyStatements : profile.arrayParameters ? unnestStatements : multiRowStatements;
  for (const statement of statements(rows, keyed)) {
    const result = await trx.executeQuery<{ event_key: string | null }>(statement);
    if (keyed) for (const row of result.rows) if (row.event_key !== null) fresh.add(row.event_key);
  }
  return freshOnce(fresh);
}

/** A key stored now counts for its first row only: calls written together may carry one key twice. */
const freshOnce = (fresh: Set<string>) => (eventKey: string | null) => eventKey === null || fresh.delete(eventKey);

/**
 * Keyed rows where writers take turns (SQLite): inside the transaction nobody else inserts, and a new
 * row's rowid is one past the largest. So the rows go in without RETURNING (which handed a row back
 * to JavaScript for every event, a third of an import's insert time), and only when fewer rows went in
 * than were sent (some had been stored before) are the new keys read back: the rows past the largest
 * rowid from before.
 */
async function insertKeyedInTurn(trx: Kysely<Database>, rows: EventInsert[]): Promise<(eventKey: string | null) => boolean> {
  const last = await trx.executeQuery<{ last: number | bigint | null }>(CompiledQuery.raw('select max(rowid) as last from analytics_events', []));
  const before = Number(last.rows[0]?.last ?? 0);
  let inserted = 0;
  for (const statement of multiRowStatements(rows, true, false)) inserted += Number((await trx.executeQuery(statement)).numAffectedRows ?? 0);
  if (inserted === rows.length) return () => true;
  const stored = await trx.executeQuery<{ event_key: string | null }>(
    CompiledQuery.raw('select event_key from analytics_events where rowid > ? and event_key is not null', [before]),
  );
  return freshOnce(new Set(stored.rows.map((row) => row.event_key!)));
}

export type VisitorTable = 'analytics_visitors' | 'analytics_visitor_log';
type VisitorRow = { visitor_hash: string; visitor_id: number };

/** Existing ids of visitor hashes in the visitor index. */
export async function selectVisitors(trx: Kysely<Database>, profile: DialectProfile, key: number, hashes: string[]): Promise<VisitorRow[]> {
  if (hashes.length === 0) return [];
  const found: VisitorRow[] = [];
  const select = 'select visitor_hash, visitor_id from analytics_visitors where project_key = ';
  if (profile.arrayParameters)
    return (await trx.executeQuery<VisitorRow>(CompiledQuery.raw(`${select}$1 and visitor_hash = any($2::text[])`, [key, hashes]))).rows;
  for (const [start, size] of runs(hashes.length)) {
    const text = cachedText(`select analytics_visitors ${size}`, () => `${select}? and visitor_hash in (${new Array(size).fill('?').join(', ')})`);
    found.push(...(await trx.executeQuery<VisitorRow>(CompiledQuery.raw(text, [key, ...hashes.slice(start, start + size)]))).rows);
  }
  return found;
}

/** Inserts visitors unless their hash is there already; returns the rows inserted. */
export async function insertVisitors(
  trx: Kysely<Database>,
  profile: DialectProfile,
  table: VisitorTable,
  key: number,
  rows: VisitorRow[],
): Promise<VisitorRow[]> {
  const insert = `insert into ${table} (project_key, visitor_hash, visitor_id)`;
  const tail = ' on conflict do nothing returning visitor_hash, visitor_id';
  if (profile.arrayParameters) {
    const text = `${insert} select $1::bigint, hash, id from unnest($2::text[], $3::bigint[]) as fresh (hash, id)${tail}`;
    return (await trx.executeQuery<VisitorRow>(CompiledQuery.raw(text, [key, rows.map((row) => row.visitor_hash), rows.map((row) => row.visitor_id)]))).rows;
  }
  // Here (SQLite) writers take turns and looked in the log and the index first, so no hash can be there already;
  // a plain insert skips building the returned rows.
  for (const [start, size] of runs(rows.length)) {
    const text = cachedText(`insert ${table} ${size}`, () => `${insert} values ${new Array(size).fill('(?, ?, ?)').join(', ')}`);
    const parameters: unknown[] = [];
    for (let index = start; index < start + size; index++) parameters.push(key, rows[index].visitor_hash, rows[index].visitor_id);
    await trx.executeQuery(CompiledQuery.raw(text, parameters));
  }
  return rows;
}
