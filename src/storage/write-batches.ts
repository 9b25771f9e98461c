import type { Kysely } from 'kysely';
import type { Storage } from './dialect.ts';
import type { Database } from './schema.ts';

type Work<T> = (trx: Kysely<Database>) => Promise<T>;

interface Queued {
  work: Work<unknown>;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

/**
 * Small write transactions of concurrent requests, committed together: the works queued in one
 * event-loop turn, and those queued while a batch commits, run one after another in one transaction.
 * Each commit on SQLite (`synchronous = full`) is an fsync that holds up the whole process, a few
 * milliseconds on a shared disk; twenty concurrent requests then wait for one commit instead of twenty.
 * Every work sees the writes of the works before it, as it would in transactions of its own, and its
 * promise settles once the batch has committed, so what a caller acknowledges is stored.
 *
 * A work that throws fails only itself: the batch is rolled back and its works run again, one
 * transaction each. Works must therefore be plain database work, safe to run twice when the first
 * run was rolled back.
 *
 * Only for SQLite: on PostgreSQL a commit does not hold up the process, and several requests' row
 * locks taken in one transaction could meet another process's in the opposite order.
 */
export class WriteBatches {
  readonly #db: Kysely<Database>;
  #queue: Queued[] = [];
  #running = false;

  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  run<T>(work: Work<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#queue.push({ work, resolve: resolve as (value: unknown) => void, reject });
      if (!this.#running) {
        this.#running = true;
        // One turn later, so requests read in the same turn join the batch.
        setImmediate(() => void this.#drain());
      }
    });
  }

  async #drain(): Promise<void> {
    while (this.#queue.length > 0) {
      const batch = this.#queue;
      this.#queue = [];
      await this.#commit(batch);
    }
    this.#running = false;
  }

  async #commit(batch: Queued[]): Promise<void> {
    try {
      const results = await this.#db.transaction().execute(async (trx) => {
        const values: unknown[] = [];
        for (const { work } of batch) values.push(await work(trx));
        return values;
      });
      batch.forEach((queued, index) => queued.resolve(results[index]));
    } catch (error) {
      if (batch.length === 1) return batch[0].reject(error);
      for (const queued of batch) await this.#commit([queued]);
    }
  }
}

const batches = new WeakMap<Kysely<Database>, WriteBatches>();

/**
 * Runs `work` in a transaction: on SQLite one shared with the other writes queued now (see
 * WriteBatches), on PostgreSQL its own.
 */
export function batchedTransaction<T>(storage: Pick<Storage, 'db' | 'profile'>, work: Work<T>): Promise<T> {
  const { db } = storage;
  if (storage.profile.name !== 'sqlite') return db.transaction().execute(work);
  let owner = batches.get(db);
  if (!owner) batches.set(db, (owner = new WriteBatches(db)));
  return owner.run(work);
}
