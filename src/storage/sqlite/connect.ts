import { closeSync, mkdirSync, openSync, readSync } from 'node:fs';
import { dirname } from 'node:path';
import { DatabaseSync, type StatementSync } from 'node:sqlite';
import { Kysely, SqliteDialect, type SqliteDatabase, type SqliteStatement } from 'kysely';
import { DatabaseUnavailableError, dialectProfiles, type Storage } from '../dialect.ts';
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
  readonly #changes: ChangeCounter;

  constructor(database: DatabaseSync, path: string) {
    this.#database = database;
    this.#changes = new ChangeCounter(database, path);
  }

  changeClock(): number {
    return this.#changes.read();
  }

  close(): void {
    this.#statements.clear();
    this.#changes.close();
    this.#database.close();
  }

  prepare(sql: string): SqliteStatement {
    // Every transaction Quire opens writes. Taking the write lock at BEGIN makes a second process
    // wait (busy_timeout) instead of failing with SQLITE_BUSY when a read lock is upgraded.
    const text = sql === 'begin' ? 'begin immediate' : sql;
    let statement = this.#statements.get(text);
    if (!statement) {
      // Anything but a plain SELECT may write; it moves the change clock once it has run.
      const writes = !/^\s*select\b/i.test(text);
      statement = wrap(this.#database.prepare(text), writes ? () => this.#changes.written() : null);
      if (this.#statements.size >= statementCacheSize) this.#statements.delete(this.#statements.keys().next().value as string);
      this.#statements.set(text, statement);
    }
    return statement;
  }
}

type Parameter = null | number | bigint | string | NodeJS.ArrayBufferView;

function wrap(statement: StatementSync, onWrite: (() => void) | null): SqliteStatement {
  const reader = statement.columns().length > 0;
  const values = (parameters: ReadonlyArray<unknown>) => parameters.map(toSqlite);
  // `finally`: a statement that failed half-way may still have changed rows.
  const execute = <T>(run: () => T): T => {
    try {
      return run();
    } catch (error) {
      throw busy(error) ? new DatabaseUnavailableError(error) : error;
    } finally {
      onWrite?.();
    }
  };
  return {
    reader,
    all: (parameters) => execute(() => statement.all(...values(parameters))),
    run: (parameters) => execute(() => statement.run(...values(parameters))),
    iterate: (parameters) => execute(() => statement.iterate(...values(parameters))),
  };
}

/** SQLITE_BUSY or SQLITE_LOCKED (the primary result code, the low byte): another process held the database past busy_timeout. */
function busy(error: unknown): boolean {
  const code = (error as { errcode?: unknown } | null)?.errcode;
  return typeof code === 'number' && [5, 6].includes(code & 0xff);
}

function toSqlite(value: unknown): Parameter {
  if (value === undefined) return null;
  if (typeof value === 'boolean') return value ? 1 : 0;
  return value as Parameter;
}

/** Bytes of the first copy of the WAL-index header (https://www.sqlite.org/walformat.html#the_wal_index_file_format). */
const walIndexHeaderBytes = 48;

/**
 * Storage.changeClock for SQLite: counts this connection's write statements as they run, and
 * notices commits by other connections (other processes). Those show in the WAL-index header, the
 * first bytes of the `-shm` file every connection maps: SQLite rewrites it on every commit (its
 * `iChange` counter, frame count and checksums). Reading those 48 bytes is one `pread`; any
 * difference counts as a change. Without a `-shm` file (an in-memory database) it asks SQLite's
 * `PRAGMA data_version` instead, which moves with other connections' commits too but costs a read
 * transaction.
 *
 * A system call per read would cost as much as the rest of a cached request, so the header is read
 * once per event-loop iteration, at the first read in it, and reused until the iteration's check
 * phase: another process's commit is seen by every read in a later iteration, at most one
 * iteration (well under a millisecond when busy) after it landed.
 */
class ChangeCounter {
  #count = 0;
  readonly #walIndex: number | null;
  readonly #header = Buffer.alloc(walIndexHeaderBytes);
  readonly #lastHeader = Buffer.alloc(walIndexHeaderBytes);
  readonly #dataVersion: StatementSync;
  #lastDataVersion = -1;
  #readThisIteration = false;
  readonly #nextIteration = () => {
    this.#readThisIteration = false;
  };

  constructor(database: DatabaseSync, path: string) {
    this.#dataVersion = database.prepare('pragma data_version');
    // A first read makes SQLite create and map the -shm file of a database in WAL mode.
    this.#dataVersion.get();
    this.#walIndex = path === ':memory:' ? null : openIfExists(`${path}-shm`);
  }

  written(): void {
    this.#count++;
  }

  read(): number {
    if (this.#readThisIteration) return this.#count;
    this.#readThisIteration = true;
    setImmediate(this.#nextIteration).unref();
    if (this.#walIndex !== null) {
      readSync(this.#walIndex, this.#header, 0, walIndexHeaderBytes, 0);
      if (!this.#header.equals(this.#lastHeader)) {
        this.#header.copy(this.#lastHeader);
        this.#count++;
      }
    } else {
      const { data_version: version } = this.#dataVersion.get() as { data_version: number };
      if (version !== this.#lastDataVersion) {
        this.#lastDataVersion = version;
        this.#count++;
      }
    }
    return this.#count;
  }

  close(): void {
    if (this.#walIndex !== null) closeSync(this.#walIndex);
  }
}

function openIfExists(path: string): number | null {
  try {
    return openSync(path, 'r');
  } catch {
    return null;
  }
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
  const connection = new NodeSqliteDatabase(database, options.path);
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: connection }) });
  return {
    db,
    profile: dialectProfiles.sqlite,
    async ping() {
      database.prepare('select 1').get();
    },
    changeClock: () => connection.changeClock(),
    poolUse: null,
    async notify() {},
    async listen() {
      return async () => {};
    },
    async close() {
      await db.destroy();
    },
  };
}
