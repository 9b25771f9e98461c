import type { Kysely } from 'kysely';
import type { Database } from './schema.ts';

/**
 * What differs between the database engines Quire runs on, as data. Queries are written once;
 * they read these flags instead of asking which engine they run on.
 */
export interface DialectProfile {
  name: 'sqlite' | 'postgres';
  /** `SELECT … FOR UPDATE` locks rows (PostgreSQL); SQLite serializes writers instead. */
  rowLocks: boolean;
  /** `FOR UPDATE SKIP LOCKED` lets concurrent queue claimers pass each other's rows. */
  skipLocked: boolean;
  /** Statement that serializes one-time set-up (migrations, first run) across processes inside a transaction; SQLite's write lock already does. */
  setupLock: string | null;
  /** Isolation that makes several statements of a transaction read one snapshot; a SQLite transaction already does. */
  snapshotIsolation: 'repeatable read' | null;
  /** An array binds as one parameter (`unnest($1::bigint[])`, `= any($1)`), so one statement text serves any row count. */
  arrayParameters: boolean;
  /**
   * A commit writes every page it touched to the log (SQLite's WAL), so scattered inserts into a large
   * index cost about a page each; PostgreSQL logs rows instead.
   */
  logsWholePages: boolean;
  /**
   * Write transactions one process runs side by side for ingestion: SQLite has one writer, so more
   * would only queue on its lock; PostgreSQL runs each on its own connection and core.
   */
  concurrentWrites: number;
  /** Rows load with `COPY … FROM STDIN` (see postgres/copy.ts). */
  copyIn: boolean;
  /** A WITH clause may insert or update (PostgreSQL), so writes that go together share one statement and one round trip. */
  modifyingCtes: boolean;
  /**
   * The planner picks plans from statistics that only ANALYZE gathers (PostgreSQL), so tables just
   * bulk-filled are analyzed by Quire itself (see statistics.ts). SQLite's planner prefers the
   * indexes whose leading columns a query fixes, which is what Quire's queries are written for.
   */
  analyzeAfterBulkWrites: boolean;
  /**
   * The hidden column naming a row of a table without a key (SQLite's `rowid`; PostgreSQL's `ctid`,
   * which changes when the row is updated, so it is used within one snapshot), and its SQL type.
   */
  rowId: { column: 'rowid' | 'ctid'; type: 'integer' | 'tid' };
  /**
   * The collation that orders text by code point (the order of its UTF-8 bytes) whatever the database's
   * own: SQLite's `binary` (its default, named so a column's collation cannot change it), PostgreSQL's `"C"`
   * (a database created with a locale such as `en_US` would otherwise put `a` before `B`). Rankings order
   * their ties by it, as lib/code-point-order.ts does in memory.
   */
  codePointCollation: 'binary' | '"C"';
}

export const dialectProfiles: Record<DialectProfile['name'], DialectProfile> = {
  sqlite: {
    name: 'sqlite',
    rowLocks: false,
    skipLocked: false,
    setupLock: null,
    snapshotIsolation: null,
    arrayParameters: false,
    logsWholePages: true,
    concurrentWrites: 1,
    copyIn: false,
    modifyingCtes: false,
    analyzeAfterBulkWrites: false,
    rowId: { column: 'rowid', type: 'integer' },
    codePointCollation: 'binary',
  },
  postgres: {
    name: 'postgres',
    rowLocks: true,
    skipLocked: true,
    setupLock: 'select pg_advisory_xact_lock(7314159)',
    snapshotIsolation: 'repeatable read',
    arrayParameters: true,
    logsWholePages: false,
    concurrentWrites: 3,
    copyIn: true,
    modifyingCtes: true,
    analyzeAfterBulkWrites: true,
    rowId: { column: 'ctid', type: 'tid' },
    codePointCollation: '"C"',
  },
};

/** A connection pool's state, as node-postgres counts it. */
export interface PoolUse {
  /** Open connections, idle or checked out. */
  total: number;
  idle: number;
  /** Queries waiting for a connection because every one is checked out. */
  waiting: number;
}

/** An open database: the query builder, what the engine can do, and how to close it. */
export interface Storage {
  db: Kysely<Database>;
  profile: DialectProfile;
  /** Checks that the database answers (used by `/readyz`). */
  ping(): Promise<void>;
  /**
   * Wakes `listen`ers of `channel` in every process once `trx` commits (PostgreSQL NOTIFY), once per
   * payload (default: one empty payload). Does nothing on SQLite, where one process serves and wakes
   * its workers in memory.
   */
  notify(trx: Kysely<Database>, channel: string, payloads?: readonly string[]): Promise<void>;
  /**
   * Calls `onNotify` with the payload whenever a process notifies `channel`, and with an empty payload
   * after (re)connecting, when notifications may have been missed; returns how to stop listening.
   */
  listen(channel: string, onNotify: (payload: string) => void): Promise<() => Promise<void>>;
  /**
   * A number that changes whenever committed data may have changed since it was last read: on
   * SQLite, every write of this process at once, and every commit of another one from the next
   * event-loop iteration on (see sqlite/connect.ts).
   * Null on PostgreSQL, where other processes write without this one knowing; caches keyed on the
   * clock are then off.
   */
  changeClock: (() => number) | null;
  /** Connections of the pool now (PostgreSQL); null on SQLite, which has one connection and no pool. */
  poolUse: (() => PoolUse) | null;
  /**
   * Runs `work` with the writes it commits answered once committed, not once on disk: `durable` resolves
   * when every commit of `work` is on disk (rejects when that failed). For a writer that may start its next
   * transaction while the disk flushes the last (the event writer's group commit) and answers its callers
   * only once `durable` resolved. Without it every write is answered once on disk. On PostgreSQL a commit
   * is on disk when it returns, so `durable` is already resolved.
   */
  deferDurability<T>(work: () => Promise<T>): Promise<{ value: T; durable: Promise<void> }>;
  /**
   * Runs `work` in a snapshot that only reads and takes no write lock: on SQLite a deferred transaction
   * outside the write turns (it neither waits for a writer nor makes one wait), on PostgreSQL a read-only
   * repeatable-read transaction. For a writer that computes what it will write from a snapshot and then
   * writes it in a short transaction that checks nothing it read has changed (fold/fold.ts). `work` must
   * not write.
   */
  readSnapshot<T>(work: (trx: Kysely<Database>) => Promise<T>): Promise<T>;
  /**
   * Threads with read-only connections of their own, for reads heavy enough to hold up the event loop
   * (SQLite, whose driver runs each statement on the calling thread; see sqlite/readers.ts). Null on
   * PostgreSQL, whose server runs statements in its own processes, and for an in-memory database,
   * which no other connection can open.
   */
  readers: Readers | null;
  /**
   * A thread with a writing connection of its own, for background writes heavy enough to hold up the
   * event loop (SQLite: the analytics fold). Its transactions take turns with this connection's
   * (sqlite/write-turns.ts); it commits as durably as this one. `run` as on `readers`, the function
   * given that thread's Storage (without threads of its own). Null on PostgreSQL, whose server runs
   * statements in its own processes, and for an in-memory database.
   */
  writer: Readers | null;
  close(): Promise<void>;
}

/** The part of a Storage a read needs: what a reading thread's connection offers. */
export type ReadStorage = Pick<Storage, 'db' | 'profile'>;

export interface Readers {
  /**
   * Calls `name(storage, ...args)`, a function `module` exports, on a reading thread, `storage` being
   * that thread's read-only connection: it sees every commit made before the call. Arguments and
   * value are copied between threads (structured clone), so they must be plain data.
   */
  run<T>(module: URL, name: string, args: unknown[]): Promise<T>;
}

/**
 * Runs `task(storage, ...args)` on the storage's writing thread where it has one (SQLite), with that thread's
 * storage, and here otherwise. `module` is the file that exports `task` (its `import.meta.url`); `args` and the
 * value cross threads as plain data.
 */
export function onWritingThread<Args extends unknown[], T>(
  storage: Storage,
  module: URL,
  task: (storage: Storage, ...args: Args) => Promise<T>,
  ...args: Args
): Promise<T> {
  return storage.writer === null ? task(storage, ...args) : storage.writer.run<T>(module, task.name, args);
}

/**
 * The database is out of reach or overloaded; retrying in a few seconds may work (the API answers
 * 503). Each backend raises it where the driver's error is seen, from the driver's own codes: the
 * same errno raised elsewhere (a client hanging up on its upload is ECONNRESET too) is no outage.
 */
export class DatabaseUnavailableError extends Error {
  constructor(cause: unknown) {
    super(`The database is unavailable: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = 'DatabaseUnavailableError';
  }
}
