import { constants, statSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';

/**
 * Flushes a SQLite database's write-ahead log to disk off the event loop, for commits written with
 * `synchronous = NORMAL` (see connect.ts). One flush runs at a time; a caller whose commit ran while a
 * flush was under way waits for the next one, and all the commits made before a flush began share it
 * (a group commit, as the database would do for concurrent writers).
 *
 * The log is a file beside the database (`<path>-wal`) that SQLite keeps while any connection is open
 * and rewrites from its start after a checkpoint (the same file). Should it be another file (a
 * connection elsewhere removed and recreated it) the handle is opened again; should it be gone (every
 * frame was checkpointed into the database, which a checkpoint syncs), the database file is flushed.
 */
export class WalSync {
  readonly #databasePath: string;
  readonly #walPath: string;
  readonly #commits: () => number;
  #handle: { file: FileHandle; inode: number; path: string } | null = null;
  /** Commits known to be on disk. */
  #synced = 0;
  #running: Promise<void> | null = null;

  /** `commits` counts the connection's commits so far (each has written its frames to the log when counted). */
  constructor(databasePath: string, commits: () => number) {
    this.#databasePath = databasePath;
    this.#walPath = `${databasePath}-wal`;
    this.#commits = commits;
  }

  /** Resolves once commit number `commit` (and every earlier one) is on disk; rejects when the flush failed. */
  async through(commit: number): Promise<void> {
    while (this.#synced < commit) {
      this.#running ??= this.#flush().finally(() => (this.#running = null));
      await this.#running;
    }
  }

  async #flush(): Promise<void> {
    // Every commit counted now has written its frames: the flush below covers them all.
    const covered = this.#commits();
    // Whether the log is still the same file is a `stat` here, a few microseconds: in the thread pool it cost a
    // hand-over to a pool thread and back to the event loop (each a wake-up of another thread, which on a
    // virtual machine costs more than the call itself), and the event loop, busy with the next group's work,
    // answered it late. Should the log be another file now, the one held is flushed too before it is closed.
    const now = this.#where();
    const held = this.#handle;
    if (held !== null && held.path === now.path && (now.inode === -1 || held.inode === now.inode)) {
      await held.file.datasync();
    } else {
      this.#handle = null;
      if (held !== null) await held.file.datasync().finally(() => held.file.close());
      const file = await open(now.path, constants.O_RDONLY);
      this.#handle = { file, inode: (await file.stat()).ino, path: now.path };
      await file.datasync();
    }
    this.#synced = Math.max(this.#synced, covered);
  }

  /** Where the log is now (or the database, when there is no log). */
  #where(): { path: string; inode: number } {
    const found = statSync(this.#walPath, { throwIfNoEntry: false });
    return found === undefined ? { path: this.#databasePath, inode: -1 } : { path: this.#walPath, inode: found.ino };
  }

  async close(): Promise<void> {
    await this.#running?.catch(() => {});
    await this.#handle?.file.close();
    this.#handle = null;
  }
}
