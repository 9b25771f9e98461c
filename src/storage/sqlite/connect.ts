import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { DatabaseSync, type StatementSync } from 'node:sqlite';
import { Kysely, SqliteDialect, type SqliteDatabase, type SqliteStatement } from 'kysely';
import { dialectProfiles, type Storage } from '../dialect.ts';
import type { Database } from '../schema.ts';

const statementCacheSize = 500;

/**
 * Adapts `node:sqlite` to the small driver interface Kysely's SQLite dialect expects
 * (it was written for better-sqlite3, which binds an array of parameters).
 * Prepared statements are cached by SQL text: Quire runs the same few hundred statements.
 */
class NodeSqliteDatabase implements SqliteDatabase {
  readonly #database: DatabaseSync;
  readonly #statements = new Map<string, SqliteStatement>();

  constructor(database: DatabaseSync) {
    this.#database = database;
  }

  close(): void {
    this.#statements.clear();
    this.#database.close();
  }

  prepare(sql: string): SqliteStatement {
    // Every transaction Quire opens writes. Taking the write lock at BEGIN makes a second process
    // wait (busy_timeout) instead of failing with SQLITE_BUSY when a read lock is upgraded.
    const text = sql === 'begin' ? 'begin immediate' : sql;
    let statement = this.#statements.get(text);
    if (!statement) {
      statement = wrap(this.#database.prepare(text));
      if (this.#statements.size >= statementCacheSize) this.#statements.delete(this.#statements.keys().next().value as string);
      this.#statements.set(text, statement);
    }
    return statement;
  }
}

type Parameter = null | number | bigint | string | NodeJS.ArrayBufferView;

function wrap(statement: StatementSync): SqliteStatement {
  const reader = statement.columns().length > 0;
  const values = (parameters: ReadonlyArray<unknown>) => parameters.map(toSqlite);
  return {
    reader,
    all: (parameters) => statement.all(...values(parameters)),
    run: (parameters) => statement.run(...values(parameters)),
    iterate: (parameters) => statement.iterate(...values(parameters)),
  };
}

function toSqlite(value: unknown): Parameter {
  if (value === undefined) return null;
  if (typeof value === 'boolean') return value ? 1 : 0;
  return value as Parameter;
}

export interface SqliteOptions {
  /** Database file, or `:memory:`. */
  path: string;
}

export function openSqlite(options: SqliteOptions): Storage {
  if (options.path !== ':memory:') mkdirSync(dirname(options.path), { recursive: true });
  const database = new DatabaseSync(options.path, { timeout: 10_000 });
  database.exec('pragma journal_mode = wal');
  // FULL: an acknowledged write survives power loss, not only a killed process.
  database.exec('pragma synchronous = full');
  database.exec('pragma foreign_keys = on');
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: new NodeSqliteDatabase(database) }) });
  return {
    db,
    profile: dialectProfiles.sqlite,
    async ping() {
      database.prepare('select 1').get();
    },
    async notify() {},
    async listen() {
      return async () => {};
    },
    async close() {
      await db.destroy();
    },
  };
}
