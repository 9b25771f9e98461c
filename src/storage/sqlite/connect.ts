import { AsyncLocalStorage } from 'node:async_hooks';
import { closeSync, openSync, readSync } from 'node:fs';
import { dirname } from 'node:path';
import { DatabaseSync, type StatementSync } from 'node:sqlite';
import { Kysely, SqliteAdapter, SqliteDialect, SqliteDriver, type DatabaseConnection, type SqliteDatabase, type SqliteStatement } from 'kysely';
import { busyTimeoutMs, CheckpointRounds, restartCheckpoint, type CheckpointingStorage } from './checkpoints.ts';
import { SqliteReaders } from './readers.ts';
import { StatementCache, wrapStatement } from './statements.ts';
import { WalSync } from './wal-sync.ts';
import { WriteTurns } from './write-turns.ts';
import { createPrivateFile, makePrivateDirectory } from '../../lib/private-files.ts';
import { dialectProfiles } from '../dialect.ts';
import type { Database } from '../schema.ts';

const statementCacheSize = 500;

/** Whether a statement may write: anything but a plain SELECT (it then moves the change clock, and takes a write turn). */
const mayWrite = (text: string) => !/^\s*select\b/i.test(text);

/**
 * Adapts `node:sqlite` to the small driver interface Kysely's SQLite dialect expects (statements.ts),
 * with statements cached by SQL text.
 */
class NodeSqliteDatabase implements SqliteDatabase {
  readonly #database: DatabaseSync;
  readonly #statements = new StatementCache(statementCacheSize);
  readonly #changes: ChangeCounter;
  /** Commits that changed something (explicit, or of a statement outside a transaction) this connection has made: what a WAL sync covers. */
  commits = 0;
  /** Whether a statement that may change data ran since the last commit or rollback. */
  #changed = false;

  constructor(database: DatabaseSync, path: string) {
    this.#database = database;
    this.#changes = new ChangeCounter(database, path);
  }

  /**
   * After a statement that may write: outside a transaction now, it committed (a rollback did not). A
   * transaction of plain SELECTs (a snapshot read: BEGIN and COMMIT) wrote nothing to the log, so it is no
   * commit to wait for: counted, it made every read wait for a flush of the log (2 ms at the median,
   * tens of milliseconds behind a busy disk or another writer's flush).
   */
  #written(statement: 'change' | 'control' | 'rollback'): void {
    this.#changes.written();
    if (statement === 'change') this.#changed = true;
    if (this.#database.isTransaction) return;
    if (this.#changed && statement !== 'rollback') this.commits++;
    this.#changed = false;
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
    return this.#statements.get(text, () => {
      // A statement that may write moves the change clock once it has run.
      const writes = mayWrite(text);
      const kind = /^\s*rollback\b/i.test(text) ? 'rollback' : /^\s*(begin|commit|end|savepoint|release)\b/i.test(text) ? 'control' : 'change';
      return wrapStatement(this.#database.prepare(text), writes ? () => this.#written(kind) : null);
    });
  }
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
  /** Reading threads and a writing thread for a database file (default true); the writing thread's own connection has none. */
  threads?: boolean;
  /** The write turns this connection shares with the process's others (write-turns.ts); default its own. */
  turns?: SharedArrayBuffer;
}

/**
 * Kysely's SQLite driver, with the durability of a commit awaited after the connection is free again.
 * With `synchronous = FULL`, SQLite syncs the WAL to disk inside every commit, and node:sqlite runs it on
 * the event loop: each commit stopped the whole process for the disk's flush (8 to 17 ms here), which
 * bounded ingestion and every concurrent request. Here the WAL is written at commit without that flush
 * (`synchronous = NORMAL`, which still syncs around checkpoints), and whoever held the connection when a
 * commit ran is answered only once a flush of the WAL that started after it has finished (wal-sync.ts),
 * in the thread pool, while the next holder writes. What is acknowledged has reached the disk, as before.
 * Inside `Storage.deferDurability` the holder is not kept waiting: the work's caller awaits the flush.
 */
/** Where `Storage.deferDurability` runs: the last commit its work made, which it awaits itself. */
const deferred = new AsyncLocalStorage<{ commit: number }>();

class DurableSqliteDriver extends SqliteDriver {
  readonly #connection: NodeSqliteDatabase;
  readonly #wal: WalSync | null;
  readonly #turns: WriteTurns;
  #queue: Promise<void> = Promise.resolve();
  #commitsAtAcquire = 0;
  #unlock: (() => void) | null = null;
  /** Whether this connection holds a write turn (from `begin` to its commit or rollback, or for a write outside a transaction). */
  #inTurn = false;
  /** The connection Kysely's driver hands out, and it as this driver hands it out (`#takingTurns`). */
  #turnTaking: { connection: DatabaseConnection; taking: DatabaseConnection } | undefined;

  constructor(connection: NodeSqliteDatabase, wal: WalSync | null, turns: WriteTurns) {
    super({ database: connection });
    this.#connection = connection;
    this.#wal = wal;
    this.#turns = turns;
  }

  // Every transaction writes (`begin immediate`): it waits for its turn without blocking the thread, not in SQLite's busy handler.
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await this.#turns.take();
    this.#inTurn = true;
    try {
      await super.beginTransaction(connection);
    } catch (error) {
      this.#endTurn();
      throw error;
    }
  }

  override async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await super.commitTransaction(connection);
    this.#endTurn();
  }

  override async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    try {
      await super.rollbackTransaction(connection);
    } finally {
      this.#endTurn();
    }
  }

  #endTurn(): void {
    if (!this.#inTurn) return;
    this.#inTurn = false;
    this.#turns.give();
  }

  override async acquireConnection(): Promise<DatabaseConnection> {
    // One holder at a time, as Kysely's own lock for single-connection dialects does (the adapter below turns that one off).
    const previous = this.#queue;
    let unlock!: () => void;
    this.#queue = new Promise<void>((resolve) => (unlock = resolve));
    await previous;
    this.#unlock = unlock;
    this.#commitsAtAcquire = this.#connection.commits;
    const connection = await super.acquireConnection();
    if (this.#turnTaking?.connection !== connection) this.#turnTaking = { connection, taking: this.#takingTurns(connection) };
    return this.#turnTaking.taking;
  }

  /**
   * The connection, with a write outside a transaction taken in a write turn as a transaction is: otherwise
   * it waits for the other connection's turn in SQLite's busy handler, which sleeps on the calling thread
   * (the event loop, while the writing thread moves the visitor log, say, for up to 300 ms).
   */
  #takingTurns(connection: DatabaseConnection): DatabaseConnection {
    return {
      executeQuery: async (query) => {
        if (this.#inTurn || !mayWrite(query.sql)) return connection.executeQuery(query);
        await this.#turns.take();
        this.#inTurn = true;
        try {
          return await connection.executeQuery(query);
        } finally {
          this.#endTurn();
        }
      },
      streamQuery: (query, chunkSize) => connection.streamQuery(query, chunkSize),
    };
  }

  override async releaseConnection(): Promise<void> {
    const committed = this.#connection.commits > this.#commitsAtAcquire ? this.#connection.commits : 0;
    const unlock = this.#unlock!;
    this.#unlock = null;
    unlock();
    if (committed === 0 || this.#wal === null) return;
    const deferring = deferred.getStore();
    if (deferring) deferring.commit = Math.max(deferring.commit, committed);
    else await this.#wal.through(committed);
  }
}

/** SQLite's adapter, saying the driver keeps its own lock (DurableSqliteDriver). */
class LockedSqliteAdapter extends SqliteAdapter {
  override get supportsMultipleConnections(): boolean {
    return true;
  }
}

class DurableSqliteDialect extends SqliteDialect {
  readonly #driver: DurableSqliteDriver;

  constructor(driver: DurableSqliteDriver, connection: NodeSqliteDatabase) {
    super({ database: connection });
    this.#driver = driver;
  }

  override createDriver(): SqliteDriver {
    return this.#driver;
  }

  override createAdapter(): SqliteAdapter {
    return new LockedSqliteAdapter();
  }
}

export function openSqlite(options: SqliteOptions): CheckpointingStorage {
  if (options.path !== ':memory:') {
    // The database holds password hashes, emails and visitor data: made for the service user alone
    // (SQLite gives its -wal and -shm files the database file's mode).
    makePrivateDirectory(dirname(options.path));
    createPrivateFile(options.path);
  }
  const database = new DatabaseSync(options.path, { timeout: busyTimeoutMs });
  database.exec('pragma journal_mode = wal');
  // An acknowledged write survives power loss, not only a killed process: commits are written to the WAL
  // (NORMAL) and answered once the WAL is flushed to disk (DurableSqliteDriver).
  const memory = options.path === ':memory:';
  database.exec(memory ? 'pragma synchronous = full' : 'pragma synchronous = normal');
  database.exec('pragma foreign_keys = on');
  const connection = new NodeSqliteDatabase(database, options.path);
  const wal = memory ? null : new WalSync(options.path, () => connection.commits);
  const turns = new WriteTurns(options.turns);
  const db = new Kysely<Database>({ dialect: new DurableSqliteDialect(new DurableSqliteDriver(connection, wal, turns), connection) });
  const threads = !memory && (options.threads ?? true);
  const readers = threads ? new SqliteReaders(options.path) : null;
  // One writing thread: SQLite has one writer at a time, which it takes turns with (write-turns.ts). Should it
  // fail, maybe in its turn, turns are off and SQLite's own lock serializes the two connections.
  const writer = threads
    ? new SqliteReaders(options.path, 1, {
        script: new URL('./writer-thread.ts', import.meta.url),
        data: { turns: turns.buffer },
        onFailure: () => turns.stop(),
      })
    : null;
  // The writing thread checkpoints the log in write turns (checkpoints.ts); should it stop, this connection checkpoints again.
  const checkpoints =
    writer === null
      ? null
      : new CheckpointRounds(
          writer,
          () => connection.changeClock(),
          () => database.exec('pragma wal_autocheckpoint = 1000'),
        );
  if (checkpoints !== null) database.exec('pragma wal_autocheckpoint = 0');
  return {
    db,
    profile: dialectProfiles.sqlite,
    async ping() {
      database.prepare('select 1').get();
    },
    changeClock: () => connection.changeClock(),
    poolUse: null,
    readers,
    writer,
    async deferDurability(work) {
      const commits = { commit: 0 };
      const value = await deferred.run(commits, work);
      const durable = wal === null || commits.commit === 0 ? Promise.resolve() : wal.through(commits.commit);
      // Nobody may be waiting yet: a failure is answered to whoever awaits it, not reported as unhandled.
      durable.catch(() => {});
      return { value, durable };
    },
    readSnapshot(work) {
      // The connection held (no other statement of this process's connection runs meanwhile) and a deferred
      // transaction begun on it directly, not through the driver, which takes a write turn for any BEGIN. In WAL
      // mode its first read fixes the snapshot.
      return db.connection().execute(async (connection) => {
        // `query_only`: a write in `work` fails instead of writing in a transaction that takes no turn.
        database.exec('pragma query_only = 1');
        database.exec('begin deferred');
        try {
          return await work(connection);
        } finally {
          database.exec('rollback');
          database.exec('pragma query_only = 0');
        }
      });
    },
    async notify() {},
    async listen() {
      return async () => {};
    },
    checkpointLog: (waitMs) => restartCheckpoint(database, turns, waitMs),
    async close() {
      await checkpoints?.stop();
      await readers?.close();
      await writer?.close();
      await db.destroy();
      await wal?.close();
    },
  };
}
