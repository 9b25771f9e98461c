/**
 * Write turns of one process's connections to one SQLite file (the serving thread's and the writing
 * thread's, writer-thread.ts): a ticket lock in shared memory, taken before `begin immediate` and given back
 * at commit or rollback. SQLite lets one connection write at a time and makes the others wait in its
 * busy handler, which sleeps on the calling thread: the event loop would stop while the writing thread
 * folds, and a writer that polls in sleeps can be passed over again and again by one that writes back to
 * back. Here a connection waits without blocking its thread (`Atomics.waitAsync`), and turns are taken
 * in the order asked for. SQLite's own lock still decides between processes, and when turns are off
 * (`stop`, after the writing thread failed, maybe in its turn) the connections rely on it alone.
 */
export class WriteTurns {
  /** [0] the ticket being served, [1] the next ticket, [2] 1 once turns are off. */
  readonly #cells: Int32Array;

  constructor(buffer = new SharedArrayBuffer(3 * Int32Array.BYTES_PER_ELEMENT)) {
    this.#cells = new Int32Array(buffer);
  }

  /** The shared memory, to hand to another thread's `WriteTurns`. */
  get buffer(): SharedArrayBuffer {
    return this.#cells.buffer as SharedArrayBuffer;
  }

  /** Resolves once it is this caller's turn (or turns are off); `give` must follow. */
  async take(): Promise<void> {
    const cells = this.#cells;
    const ticket = Atomics.add(cells, 1, 1);
    for (;;) {
      const serving = Atomics.load(cells, 0);
      if (serving === ticket || Atomics.load(cells, 2) === 1) return;
      const waiting = Atomics.waitAsync(cells, 0, serving);
      if (waiting.async) await waiting.value;
    }
  }

  /** Ends the caller's turn: the next ticket's holder goes on. */
  give(): void {
    Atomics.add(this.#cells, 0, 1);
    Atomics.notify(this.#cells, 0);
  }

  /** Whether turns are off (`stop`). */
  get stopped(): boolean {
    return Atomics.load(this.#cells, 2) === 1;
  }

  /** Turns off for good: every waiter goes on, and SQLite's lock alone serializes writers. */
  stop(): void {
    Atomics.store(this.#cells, 2, 1);
    Atomics.add(this.#cells, 0, 1);
    Atomics.notify(this.#cells, 0);
  }
}
