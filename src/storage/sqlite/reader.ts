import { DatabaseSync, type StatementSync } from 'node:sqlite';
import { Kysely, SqliteDialect, type SqliteDatabase, type SqliteStatement } from 'kysely';
import { DatabaseUnavailableError, dialectProfiles, type ReadStorage } from '../dialect.ts';
import type { Database } from '../schema.ts';

const statementCacheSize = 100;

type Parameter = null | number | bigint | string | NodeJS.ArrayBufferView;

/** SQLITE_BUSY or SQLITE_LOCKED (the primary result code, the low byte), as connect.ts reads them. */
function busy(error: unknown): boolean {
  const code = (error as { errcode?: unknown } | null)?.errcode;
  return typeof code === 'number' && [5, 6].includes(code & 0xff);
}

function toSqlite(value: unknown): Parameter {
  if (value === undefined) return null;
  if (typeof value === 'boolean') return value ? 1 : 0;
  return value as Parameter;
}

function wrap(statement: StatementSync): SqliteStatement {
  const execute = <T>(run: () => T): T => {
    try {
      return run();
    } catch (error) {
      throw busy(error) ? new DatabaseUnavailableError(error) : error;
    }
  };
  return {
    reader: statement.columns().length > 0,
    all: (parameters) => execute(() => statement.all(...parameters.map(toSqlite))),
    run: (parameters) => execute(() => statement.run(...parameters.map(toSqlite))),
    iterate: (parameters) => execute(() => statement.iterate(...parameters.map(toSqlite))),
  };
}

/** A read-only `node:sqlite` connection as Kysely's SQLite dialect takes it, statements cached by text. */
class ReadOnlySqliteDatabase implements SqliteDatabase {
  readonly #database: DatabaseSync;
  readonly #statements = new Map<string, SqliteStatement>();

  constructor(path: string) {
    this.#database = new DatabaseSync(path, { readOnly: true, timeout: 10_000 });
  }

  prepare(text: string): SqliteStatement {
    let statement = this.#statements.get(text);
    if (!statement) {
      statement = wrap(this.#database.prepare(text));
      if (this.#statements.size >= statementCacheSize) this.#statements.delete(this.#statements.keys().next().value as string);
      this.#statements.set(text, statement);
    }
    return statement;
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
