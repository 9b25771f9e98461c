import { DatabaseSync } from 'node:sqlite';
import { Kysely, SqliteDialect, type SqliteDatabase, type SqliteStatement } from 'kysely';
import { dialectProfiles, type ReadStorage } from '../dialect.ts';
import type { Database } from '../schema.ts';
import { StatementCache, wrapStatement } from './statements.ts';

const statementCacheSize = 100;

/** A read-only `node:sqlite` connection as Kysely's SQLite dialect takes it, statements cached by text. */
class ReadOnlySqliteDatabase implements SqliteDatabase {
  readonly #database: DatabaseSync;
  readonly #statements = new StatementCache(statementCacheSize);

  constructor(path: string) {
    this.#database = new DatabaseSync(path, { readOnly: true, timeout: 10_000 });
  }

  prepare(text: string): SqliteStatement {
    return this.#statements.get(text, () => wrapStatement(this.#database.prepare(text), null));
  }

  close(): void {
    this.#statements.clear();
    this.#database.close();
  }
}

/**
 * A read-only connection to the SQLite database at `path`, for a thread that reads beside the
 * process's own connection (see readers.ts): in WAL mode a reader sees the last commit when its read
 * begins and never waits for the writer.
 */
export function openSqliteReader(path: string): ReadStorage & { close(): Promise<void> } {
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: new ReadOnlySqliteDatabase(path) }) });
  return { db, profile: dialectProfiles.sqlite, close: () => db.destroy() };
}
