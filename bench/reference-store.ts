/**
 * The one table both reference stores write (bench/ingest-reference-server.ts, bench/import-reference.ts): the
 * least that keeps raw events as the design asks, so the two references store alike. One row an event in a
 * node:sqlite table with one index (the event's day), in WAL mode with every commit on disk (`synchronous =
 * full`). `columns` follow `at` (milliseconds, the indexed time), with no declared type: values are kept as
 * given. Answers the prepared insert.
 */
import { DatabaseSync, type StatementSync } from 'node:sqlite';

export function referenceStore(path: string, columns: string[]): { database: DatabaseSync; insert: StatementSync } {
  const database = new DatabaseSync(path);
  database.exec('pragma journal_mode = wal');
  database.exec('pragma synchronous = full');
  database.exec(`create table if not exists events (at integer not null, ${columns.join(', ')})`);
  database.exec('create index if not exists events_day on events (at / 86400000)');
  const insert = database.prepare(`insert into events (at, ${columns.join(', ')}) values (${['at', ...columns].map(() => '?').join(', ')})`);
  return { database, insert };
}
