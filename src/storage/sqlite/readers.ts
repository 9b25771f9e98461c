import { availableParallelism } from 'node:os';
import type { Worker } from 'node:worker_threads';
import { DatabaseUnavailableError, type Readers } from '../dialect.ts';
import { longLivedThreadLimits } from '../../lib/thread-memory.ts';
import { startThread } from '../../lib/threads.ts';

/** One call, as it crosses to a reading thread: `module` is a file URL. */
export interface ReadTask {
  id: number;
  module: string;
  name: string;
  args: unknown[];
}

/** A reading thread's answer: the function's value, or what it threw (its message, and whether the database was unavailable). */
export interface ReadAnswer {
  id: number;
  value?: unknown;
  error?: { message: string; unavailable: boolean };
}

/** Another kind of thread on the same protocol (the writing thread, writer-thread.ts). */
export interface ThreadOptions {
  /** The thread's module (default reader-thread.ts). */
  script?: URL;
  /** More of the thread's `workerData`, beside `path`. */
  data?: Record<string, unknown>;
  /** Heard when a thread fails or stops, before its unanswered calls are failed. */
  onFailure?: () => void;
}

interface ReadThread {
  worker: Worker;
  pending: Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>;
}

/**
 * Threads that read the SQLite database through connections of their own (Storage.readers).
 * `node:sqlite` runs a statement on the thread that calls it, so a heavy read (a docs search ranks
 * thousands of sections) stops the event loop and every request behind it; in WAL mode readers on
 * other connections run beside the process's own connection and its writes, on other cores.
 *
 * `size` threads (default the cores, at most 4) start at the first call; idle ones do not keep the
 * process alive. A thread that fails is replaced on the
 * next call; the calls it had not answered fail.
 */
export class SqliteReaders implements Readers {
  readonly #path: string;
  readonly #size: number;
  readonly #thread: ThreadOptions;
  readonly #threads: ReadThread[] = [];
  #next = 0;
  #closed = false;

  constructor(path: string, size = Math.max(1, Math.min(4, availableParallelism())), thread: ThreadOptions = {}) {
    this.#path = path;
    this.#size = size;
    this.#thread = thread;
  }

  run<T>(module: URL, name: string, args: unknown[]): Promise<T> {
    if (this.#closed) return Promise.reject(new Error('The database is closed'));
    const thread = this.#leastBusy();
    const id = this.#next++;
    return new Promise<T>((resolve, reject) => {
      thread.pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      thread.worker.postMessage({ id, module: module.href, name, args } satisfies ReadTask);
    });
  }

  /**
   * The least busy thread. All of them start at the first call: a thread takes hundreds of milliseconds
   * to load its modules, and one started only once the others are busy kept the calls sent to it waiting.
   */
  #leastBusy(): ReadThread {
    while (this.#threads.length < this.#size) this.#threads.push(this.#start());
    return this.#threads.reduce((best, thread) => (thread.pending.size < best.pending.size ? thread : best));
  }

  #start(): ReadThread {
    const { script = new URL('./reader-thread.ts', import.meta.url), data, onFailure } = this.#thread;
    const worker = startThread(script, { workerData: { ...data, path: this.#path }, resourceLimits: longLivedThreadLimits });
    const thread: ReadThread = { worker, pending: new Map() };
    worker.unref();
    worker.on('message', ({ id, value, error }: ReadAnswer) => {
      const pending = thread.pending.get(id);
      thread.pending.delete(id);
      if (!error) pending?.resolve(value);
      else pending?.reject(error.unavailable ? new DatabaseUnavailableError(error.message) : new Error(error.message));
    });
    const fail = (error?: Error) => {
      const index = this.#threads.indexOf(thread);
      if (index !== -1) this.#threads.splice(index, 1);
      onFailure?.();
      for (const { reject } of thread.pending.values()) reject(error ?? new Error('A reading thread stopped'));
      thread.pending.clear();
    };
    worker.on('error', fail);
    worker.on('exit', () => fail());
    return thread;
  }

  async close(): Promise<void> {
    this.#closed = true;
    await Promise.all(this.#threads.splice(0).map((thread) => thread.worker.terminate()));
  }
}
