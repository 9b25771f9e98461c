import { closeSync, openSync, readSync } from 'node:fs';
import { endianness } from 'node:os';
import { DatabaseSync } from 'node:sqlite';
import type { Readers } from '../dialect.ts';

/**
 * WAL frames past which the writing thread checkpoints: SQLite's own auto-checkpoint default (4 MB at
 * its default page size), so the log on disk stays as large as before.
 */
export const checkpointFrames = 1000;
/**
 * WAL frames past which the serving connection checkpoints itself (SQLite's auto-checkpoint), should the
 * writing thread fall behind: a thread busy with a long task, or checkpoints that never catch up with
 * a writer that commits back to back (SQLite rewinds the log only once every frame is in the database).
 * Most frames are then copied already, so this checkpoint has little left to do.
 */
export const fallbackFrames = 4 * checkpointFrames;

/**
 * Reads how many frames the WAL holds (`mxFrame`) from the WAL-index header in the `-shm` file, which
 * every connection maps and SQLite rewrites on every commit (https://www.sqlite.org/walformat.html):
 * one `pread`, no lock and no statement.
 */
export class WalFrames {
  readonly #path: string;
  #descriptor: number | null = null;
  readonly #header = Buffer.alloc(20);

  constructor(databasePath: string) {
    this.#path = `${databasePath}-shm`;
  }

  read(): number {
    this.#descriptor ??= openSync(this.#path, 'r');
    readSync(this.#descriptor, this.#header, 0, this.#header.length, 0);
    // The header is in the host's byte order.
    return endianness() === 'LE' ? this.#header.readUInt32LE(16) : this.#header.readUInt32BE(16);
  }

  close(): void {
    if (this.#descriptor !== null) closeSync(this.#descriptor);
    this.#descriptor = null;
  }
}

/**
 * Checkpoints of the serving connection's WAL, run on the writing thread (Storage.writer). SQLite's
 * auto-checkpoint runs inside the commit that crosses its bound, on the committing connection: on the
 * serving connection that is the event loop, which spent about 3 ms a commit copying the log into the
 * database during ingestion. Here the serving connection's auto-checkpoint is raised to `fallbackFrames`
 * and, after a commit leaves more than `checkpointFrames` in the log, the writing thread runs a PASSIVE
 * checkpoint, which neither waits for nor blocks SQLite's readers and writer, and takes no write turn
 * (write-turns.ts): the serving connection goes on writing meanwhile.
 *
 * Should the writing thread fail, the serving connection checkpoints every `checkpointFrames` itself
 * again, as SQLite does by default. Durability is the same either way: a checkpoint syncs the log
 * before copying it and the database after, whichever connection runs it.
 */
export class WalCheckpoints {
  readonly #database: DatabaseSync;
  readonly #path: string;
  readonly #writer: Readers;
  readonly #frames: WalFrames;
  #running = false;
  #fallen = false;

  constructor(database: DatabaseSync, path: string, writer: Readers) {
    this.#database = database;
    this.#path = path;
    this.#writer = writer;
    this.#frames = new WalFrames(path);
    database.exec(`pragma wal_autocheckpoint = ${fallbackFrames}`);
  }

  /** After a commit of the serving connection: asks the writing thread for a checkpoint when the log is past its bound. */
  committed(): void {
    if (this.#running || this.#fallen || this.#frames.read() < checkpointFrames) return;
    this.#running = true;
    this.#writer.run(new URL(import.meta.url), 'checkpointOnThread', [this.#path]).then(
      () => (this.#running = false),
      () => this.fallBack(),
    );
  }

  /** The writing thread failed: the serving connection checkpoints itself from now on, as SQLite does by default. */
  fallBack(): void {
    if (this.#fallen) return;
    this.#fallen = true;
    this.#running = false;
    if (this.#database.isOpen) this.#database.exec(`pragma wal_autocheckpoint = ${checkpointFrames}`);
  }

  close(): void {
    this.#frames.close();
  }
}

/**
 * The writing thread's checkpoint connections, one per database file. A connection of its own, not the
 * thread's writing one: that one may be waiting for a write turn or holding a transaction, and a
 * checkpoint needs neither.
 */
const connections = new Map<string, DatabaseSync>();

/**
 * A PASSIVE checkpoint of the database at `path`, run by the writing thread (writer-thread.ts), which calls it by name.
 * @public
 */
export async function checkpointOnThread(_storage: unknown, path: string): Promise<{ log: number; checkpointed: number }> {
  let connection = connections.get(path);
  if (connection === undefined) {
    connection = new DatabaseSync(path);
    connections.set(path, connection);
  }
  const { log, checkpointed } = connection.prepare('pragma wal_checkpoint(passive)').get() as { log: number; checkpointed: number };
  return { log, checkpointed };
}
