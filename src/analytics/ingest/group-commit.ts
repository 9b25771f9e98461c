/**
 * Group commit: calls that arrive while a commit is under way (or in the same turn of the event
 * loop) are written together in the next transaction, so concurrent ingestion requests share one
 * commit and its sync to disk. Each caller is still answered only after its own events are
 * committed. When a shared transaction fails, its calls are retried one by one, so one bad call
 * cannot fail the others. Where the database lets writers run side by side (PostgreSQL), up to
 * `concurrency` groups are written at once, so one group's statements run while the next is prepared.
 */
export interface GroupWriterOptions<Call, Result> {
  /** Stores calls in one transaction, answering each. */
  write(calls: Call[]): Promise<Result[]>;
  /** A call's weight (its event count); a group holds up to `maxSize`, and always at least one call. */
  size(call: Call): number;
  maxSize: number;
  /** Groups written at once (default 1: one transaction at a time, as SQLite's single writer needs). */
  concurrency?: number;
  /** Calls a group holds at most (default: as many as `maxSize` allows). */
  maxCalls?: number;
  /** Housekeeping between groups, after the callers of the last one were answered. */
  afterGroup?(): Promise<void>;
}

export class GroupWriter<Call, Result> {
  readonly #options: GroupWriterOptions<Call, Result>;
  #queue: { call: Call; resolve: (result: Result) => void; reject: (error: unknown) => void }[] = [];
  #drains = 0;

  constructor(options: GroupWriterOptions<Call, Result>) {
    this.#options = options;
  }

  write(call: Call): Promise<Result> {
    return new Promise((resolve, reject) => {
      this.#queue.push({ call, resolve, reject });
      if (this.#drains < (this.#options.concurrency ?? 1)) {
        this.#drains++;
        setImmediate(() => void this.#drain());
      }
    });
  }

  async #drain(): Promise<void> {
    const { write, size, maxSize, maxCalls = Infinity, afterGroup } = this.#options;
    while (this.#queue.length > 0) {
      let total = 0;
      let count = 0;
      while (count < Math.min(this.#queue.length, maxCalls) && (count === 0 || total + size(this.#queue[count].call) <= maxSize))
        total += size(this.#queue[count++].call);
      const group = this.#queue.splice(0, count);
      try {
        const results = await write(group.map((entry) => entry.call));
        group.forEach((entry, index) => entry.resolve(results[index]));
      } catch (error) {
        if (group.length === 1) group[0].reject(error);
        else for (const entry of group) await write([entry.call]).then(([result]) => entry.resolve(result), entry.reject);
      }
      await afterGroup?.();
    }
    this.#drains--;
  }
}
