import { constants } from 'node:fs';
import { open, stat, type FileHandle } from 'node:fs/promises';

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
    // The check that the log is still the same file and the flush of the one held run side by side: each
    // waits in the thread pool and then for a turn of the event loop, which is busy with the next group's
    // work, and in turn they added 2 to 3 ms to every acknowledgement. Should the log be another file now
    // (or none was held yet), that one is flushed (closing the old handle waits for its flush).
    const held = this.#handle;
    const [current] = await Promise.all([this.#current(), held?.file.datasync()]);
    if (current !== held) await current.file.datasync();
    this.#synced = Math.max(this.#synced, covered);
  }

  /** A handle on the log as it is now (or on the database, when there is no log). */
  async #current(): Promise<{ file: FileHandle; inode: number; path: string }> {
    const now = await stat(this.#walPath).then(
      (found) => ({ path: this.#walPath, inode: found.ino }),
      (error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') return { path: this.#databasePath, inode: -1 };
        throw error;
      },
    );
    if (this.#handle !== null && this.#handle.path === now.path && (now.inode === -1 || this.#handle.inode === now.inode)) return this.#handle;
    await this.#handle?.file.close();
    this.#handle = null;
    const file = await open(now.path, constants.O_RDONLY);
    this.#handle = { file, inode: (await file.stat()).ino, path: now.path };
    return this.#handle;
  }

  async close(): Promise<void> {
    await this.#running?.catch(() => {});
    await this.#handle?.file.close();
    this.#handle = null;
  }
}
