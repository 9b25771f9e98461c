/**
 * Checkpoints of the write-ahead log on the writing thread (writer-thread.ts), each in a write turn, so
 * that the log starts over instead of growing.
 *
 * By default SQLite checkpoints inside the commit that takes the log past 1,000 pages, on the connection
 * that commits: the serving connection, so the event loop copied pages and synced the database file
 * (66 commits of 768 took over 5 ms in a 1,000,000-view ingestion). Checkpoints taken by another connection
 * outside a turn (PASSIVE, an earlier attempt) never found every frame copied with no writer about, so the
 * log never started over; it grew through a whole load, and every page lookup searched a larger log index.
 *
 * Here the serving connection does not checkpoint (`wal_autocheckpoint = 0`). While it or the writing
 * thread commits, the writing thread takes a write turn at most every `intervalMs` and runs a RESTART
 * checkpoint: every frame is copied, and once the readers that started before have finished (SQLite's busy
 * handler waits for them, here at most `waitMs`), the next writer starts the log over. Meanwhile the serving
 * thread's writers wait for their turn without blocking its event loop (write-turns.ts). A reader that
 * outlasts the wait leaves the log as long as it is; the next round tries again.
 */
import type { DatabaseSync } from 'node:sqlite';
import type { Readers, Storage } from '../dialect.ts';
import { busy } from './statements.ts';
import type { WriteTurns } from './write-turns.ts';

/** How often, at most, the log is checkpointed while commits arrive. */
export const checkpointIntervalMs = 250;
/** How long a checkpoint waits, in its turn, for readers of the log's older frames to finish. */
export const checkpointWaitMs = 50;
/** SQLite's busy timeout of Quire's connections, restored after a checkpoint's shorter wait. */
export const busyTimeoutMs = 10_000;

/** What one checkpoint did: the log's frames, those copied into the database (-1 when it was locked out), and whether readers or another process kept it from starting over. */
export interface CheckpointResult {
  busy: boolean;
  logFrames: number;
  checkpointedFrames: number;
}

/** A SQLite storage whose connection can checkpoint the log in a write turn (the writing thread's). */
export interface CheckpointingStorage extends Storage {
  checkpointLog(waitMs: number): Promise<CheckpointResult | null>;
}

/**
 * A RESTART checkpoint on `database` in a write turn: null when it cannot run now (turns are off, so the
 * connection may be inside a transaction of its own), busy when a read snapshot is open on it.
 */
export async function restartCheckpoint(database: DatabaseSync, turns: WriteTurns, waitMs: number): Promise<CheckpointResult | null> {
  await turns.take();
  try {
    if (turns.stopped) return null;
    // In its turn, the connection writes nothing: a transaction open now is a read snapshot (Storage.readSnapshot). The next round tries again.
    if (database.isTransaction) return { busy: true, logFrames: -1, checkpointedFrames: -1 };
    database.exec(`pragma busy_timeout = ${Math.max(0, Math.round(waitMs))}`);
    try {
      const row = database.prepare('pragma wal_checkpoint(restart)').get() as { busy: number; log: number; checkpointed: number };
      return { busy: row.busy === 1, logFrames: row.log, checkpointedFrames: row.checkpointed };
    } catch (error) {
      // Another process holds the database (a backup's exclusive lock, say): the next round tries again.
      if (busy(error)) return { busy: true, logFrames: -1, checkpointedFrames: -1 };
      throw error;
    } finally {
      database.exec(`pragma busy_timeout = ${busyTimeoutMs}`);
    }
  } finally {
    turns.give();
  }
}

/** The writing thread's task (thread-tasks.ts): one checkpoint on its connection. */
export function checkpointLog(storage: CheckpointingStorage, waitMs: number): Promise<CheckpointResult | null> {
  return storage.checkpointLog(waitMs);
}

/**
 * On the serving thread: asks the writing thread for a checkpoint every `intervalMs` in which a commit
 * moved `changeClock` (any connection's, the writing thread's included), one at a time. A checkpoint that
 * fails or cannot run (the writing thread stopped, so turns are off) ends the rounds and calls `onStop`,
 * which gives the serving connection its own checkpoints back.
 */
export class CheckpointRounds {
  readonly #timer: NodeJS.Timeout;
  #lastClock: number;
  #running: Promise<void> | null = null;
  #stopped = false;

  constructor(writer: Readers, changeClock: () => number, onStop: () => void, options: { intervalMs?: number; waitMs?: number } = {}) {
    const { intervalMs = checkpointIntervalMs, waitMs = checkpointWaitMs } = options;
    this.#lastClock = changeClock();
    this.#timer = setInterval(() => {
      if (this.#running !== null || this.#stopped) return;
      const clock = changeClock();
      if (clock === this.#lastClock) return;
      // Commits during the checkpoint move the clock again: the next round checkpoints them.
      this.#lastClock = clock;
      this.#running = writer
        .run<CheckpointResult | null>(new URL(import.meta.url), checkpointLog.name, [waitMs])
        .then(
          (result) => {
            // Null: turns are off (the writing thread failed), so its checkpoints could not be taken in turn.
            if (result === null) this.#end(onStop);
          },
          () => this.#end(onStop),
        )
        .finally(() => (this.#running = null));
    }, intervalMs);
    this.#timer.unref();
  }

  #end(onStop: () => void): void {
    if (this.#stopped) return;
    this.#stopped = true;
    clearInterval(this.#timer);
    onStop();
  }

  /** Ends the rounds; resolves once a checkpoint under way has finished. */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearInterval(this.#timer);
    await this.#running;
  }
}
