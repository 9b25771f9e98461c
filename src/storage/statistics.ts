import { sql } from 'kysely';
import type { Storage } from './dialect.ts';
import type { Database } from './schema.ts';

type Table = keyof Database & string;

/** Rows written to each table by one committed transaction. */
export type TableWrites = Partial<Record<Table, number>>;

export interface StatisticsOptions {
  /** Reports an ANALYZE that failed; the writes before it have committed and stay. */
  onError(error: unknown): void;
  /** Rows a table takes, since this process last analyzed it, before it can be due at all. Default 5,000. */
  minRows?: number;
  /** Share of a table's estimated rows written since this process last analyzed it that makes it due. Default 0.2. */
  share?: number;
}

/**
 * Keeps the planner statistics of bulk-written tables fresh, as PostgreSQL's manual advises after
 * loading data. Autovacuum analyzes a table only once its threshold is crossed and its next round
 * comes, so a table filled in minutes can be read for a while with no statistics at all, and the
 * planner then guesses plans that scan a whole range. Writers report what they wrote once it has
 * committed; a table is due when those rows reach `minRows` and it was never analyzed
 * (`pg_class.reltuples` < 0) or they exceed `share` of its estimated rows. Due tables are analyzed
 * in the background, one ANALYZE at a time: writers never wait for it, and its errors are reported,
 * never thrown. Does nothing where the profile says plans need no statistics.
 */
export class StatisticsKeeper {
  readonly #storage: Storage;
  readonly #options: Required<StatisticsOptions>;
  readonly #written = new Map<Table, number>();
  /** `reltuples` as this process last read it; -1 never analyzed, Infinity no such table. */
  readonly #estimated = new Map<Table, number>();
  #running: Promise<void> | null = null;

  constructor(storage: Storage, options: StatisticsOptions) {
    this.#storage = storage;
    this.#options = { minRows: 5000, share: 0.2, ...options };
  }

  /** Counts rows a committed transaction wrote, and starts an ANALYZE if a table is now due. */
  wrote(writes: TableWrites): void {
    if (!this.#storage.profile.analyzeAfterBulkWrites) return;
    for (const [table, rows] of Object.entries(writes) as [Table, number][]) this.#written.set(table, (this.#written.get(table) ?? 0) + rows);
    if (this.#running || this.#due().length === 0) return;
    this.#running = this.#keep()
      .catch((error: unknown) => this.#options.onError(error))
      .finally(() => (this.#running = null));
  }

  /** Resolves once no ANALYZE of this keeper is running (before closing the storage, and in tests). */
  async settled(): Promise<void> {
    while (this.#running) await this.#running;
  }

  #due(): Table[] {
    const { minRows, share } = this.#options;
    return [...this.#written]
      .filter(([table, rows]) => {
        const estimated = this.#estimated.get(table);
        return rows >= minRows && (estimated === undefined || estimated < 0 || rows > share * estimated);
      })
      .map(([table]) => table);
  }

  async #keep(): Promise<void> {
    // Writes that commit meanwhile count on, so the loop ends once nothing is due any more.
    for (let due = this.#due(); due.length > 0; due = this.#due()) {
      const unknown = due.filter((table) => !this.#estimated.has(table));
      if (unknown.length > 0) {
        await this.#estimate(unknown);
        continue;
      }
      for (const table of due) this.#written.set(table, 0);
      await sql`analyze ${sql.join(due.map((table) => sql.table(table)))}`.execute(this.#storage.db);
      await this.#estimate(due);
    }
  }

  async #estimate(tables: Table[]): Promise<void> {
    const { rows } = await sql<{ name: Table; estimated: number }>`
      select relname as name, reltuples::float8 as estimated from pg_class
      where oid = any(array[${sql.join(tables.map((table) => sql`to_regclass(${table})`))}])`.execute(this.#storage.db);
    for (const table of tables) this.#estimated.set(table, Number.POSITIVE_INFINITY);
    for (const row of rows) this.#estimated.set(row.name, Number(row.estimated));
  }
}
