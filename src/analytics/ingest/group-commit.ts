/**
 * Group commit: calls that arrive while a commit is under way (or in the same turn of the event
 * loop) are written together in the next transaction, so concurrent ingestion requests share one
 * commit and its sync to disk. Each caller is still answered only after its own events are
 * committed. When a shared transaction fails, its calls are retried one by one, so one bad call
 * cannot fail the others. Where the database lets writers run side by side (PostgreSQL), up to
 * `concurrency` groups are written at once, so one group's statements run while the next is prepared.
 */
/**
 * What a group's write answers: each call's result, or each call's result and when the callers may have
 * them: once `durable` resolves (their commit is on disk; see Storage.deferDurability). The next group is
 * written meanwhile, so a commit's flush to disk overlaps the next group's work.
 */
export type Written<Result> = Result[] | { results: Result[]; durable: Promise<void> };

export interface GroupWriterOptions<Call, Result> {
  /** Stores calls in one transaction, answering each. */
  write(calls: Call[]): Promise<Written<Result>>;
  /** A call's weight (its event count); a group holds up to `maxSize`, and always at least one call. */
  size(call: Call): number;
  maxSize: number;
  /** Groups written at once (default 1: one transaction at a time, as SQLite's single writer needs). */
  concurrency?: number;
  /** Calls of one group share this key (default: any calls may share a group). */
  groupKey?(call: Call): unknown;
  /** Housekeeping between groups, after the callers of the last one were answered. */
  afterGroup?(): Promise<void>;
}

interface Queued<Call, Result> {
  call: Call;
  resolve: (result: Result) => void;
  reject: (error: unknown) => void;
}

export class GroupWriter<Call, Result> {
  readonly #options: GroupWriterOptions<Call, Result>;
  #queue: Queued<Call, Result>[] = [];
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
    const { write, size, maxSize, groupKey, afterGroup } = this.#options;
    while (this.#queue.length > 0) {
      // The first queued call and those after it with its key, in order, while they fit; the others wait for the next group.
      const key = groupKey?.(this.#queue[0].call);
      let total = 0;
      let full = false;
      const group: Queued<Call, Result>[] = [];
      const rest: Queued<Call, Result>[] = [];
      for (const entry of this.#queue) {
        const taken = group.length === 0 || (!full && (groupKey === undefined || groupKey(entry.call) === key) && total + size(entry.call) <= maxSize);
        if (taken) total += size(entry.call);
        else full ||= groupKey === undefined || groupKey(entry.call) === key;
        (taken ? group : rest).push(entry);
      }
      this.#queue = rest;
      try {
        answer(group, await write(group.map((entry) => entry.call)));
      } catch (error) {
        if (group.length === 1) group[0].reject(error);
        else for (const entry of group) await write([entry.call]).then((written) => answer([entry], written), entry.reject);
      }
      await afterGroup?.();
    }
    this.#drains--;
  }
}

/** Answers a group's callers with their results, at once or once the group's commit is on disk (a failed flush fails them all). */
function answer<Call, Result>(group: Queued<Call, Result>[], written: Written<Result>): void {
  if (Array.isArray(written)) {
    group.forEach((entry, index) => entry.resolve(written[index]));
    return;
  }
  const { results, durable } = written;
  durable.then(
    () => group.forEach((entry, index) => entry.resolve(results[index])),
    (error: unknown) => group.forEach((entry) => entry.reject(error)),
  );
}
