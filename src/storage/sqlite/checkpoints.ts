import type { DatabaseSync } from 'node:sqlite';
import { sql } from 'kysely';
import type { Readers, Storage } from '../dialect.ts';

/** SQLite's own threshold for an automatic checkpoint, in pages of log: what the serving connection goes back to. */
const automaticPages = 1000;

/**
 * Checkpoints (copying the write-ahead log back into the database) in the writing thread instead of on the event loop.
 *
 * SQLite checkpoints in whichever connection commits past 1,000 pages of log, inside that commit, and syncs the
 * database file there: on the serving connection, node:sqlite runs that on the event loop. While the analytics bench
 * ingested 1,000,000 views, 66 of its 768 commits took longer than 5 ms, 734 ms in all (11 ms each), the event loop
 * stopped meanwhile. The serving connection turns its automatic checkpoints off, and at most once per `intervalMs`
 * after it committed, the writing thread (writer-thread.ts) runs a PASSIVE checkpoint on its own connection, which
 * waits for no reader or writer. Should the writing thread fail, the serving connection checkpoints itself again.
 */
export class OffloadedCheckpoints {
  readonly #database: DatabaseSync;
  readonly #writer: Readers;
  readonly #commits: () => number;
  readonly #timer: NodeJS.Timeout;
  #checkpointedAt = 0;
  #running = false;
  #stopped = false;

  constructor(database: DatabaseSync, writer: Readers, commits: () => number, intervalMs = 1000) {
    this.#database = database;
    this.#writer = writer;
    this.#commits = commits;
    database.exec('pragma wal_autocheckpoint = 0');
    this.#timer = setInterval(() => this.#tick(), intervalMs).unref();
  }

  #tick(): void {
    const commits = this.#commits();
    if (this.#stopped || this.#running || commits === this.#checkpointedAt) return;
    this.#checkpointedAt = commits;
    this.#running = true;
    // A failed checkpoint leaves the log to the next one (or, once the writing thread is gone, to `fallBack`).
    this.#writer
      .run(new URL(import.meta.url), checkpointOnThread.name, [])
      .catch(() => {})
      .finally(() => (this.#running = false));
  }

  /** The writing thread failed: the serving connection checkpoints itself again, as SQLite does by default. */
  fallBack(): void {
    this.stop();
    this.#database.exec(`pragma wal_autocheckpoint = ${automaticPages}`);
  }

  stop(): void {
    this.#stopped = true;
    clearInterval(this.#timer);
  }
}

/** Runs in the writing thread (a task of thread-tasks.ts): copies what it can of the log into the database. */
export async function checkpointOnThread(storage: Pick<Storage, 'db'>): Promise<void> {
  await sql`pragma wal_checkpoint(passive)`.execute(storage.db);
}
