import type { Storage } from '../../storage/dialect.ts';
import { Dictionary } from '../ingest/dense-ids.ts';
import type { DaySet } from '../model/day-set.ts';
import type { RangeIndex } from './range-index.ts';
import type { Ranking } from './exact-counts.ts';

interface CachedDay {
  revision: number;
  set: DaySet;
}

interface CachedRanking {
  version: number;
  ranking: Ranking;
}

/** Decoded day sets kept in memory, in visitor entries (4 bytes each): about 256 MiB. */
const daySetBudget = 64 * 1024 * 1024;
const rankingCacheSize = 128;

/**
 * Per-process analytics state of one database: id caches, decoded day sets and computed rankings.
 * Everything here is a cache of database state that is checked (revisions, versions) before use,
 * so several processes sharing one database stay correct.
 */
export class Engine {
  readonly dictionary = new Dictionary();
  readonly #days = new Map<string, CachedDay>();
  #dayEntries = 0;
  readonly #rankings = new Map<string, CachedRanking>();
  readonly #indexes = new Map<number, RangeIndex>();
  /** Called after events are committed, so the indexer can fold them soon. */
  onCommitted: (projectKey: number) => void = () => {};
  /** Called when a query found the project's range index missing or behind its day sets. */
  onIndexStale: (projectKey: number) => void = () => {};

  index(projectKey: number): RangeIndex | undefined {
    return this.#indexes.get(projectKey);
  }

  storeIndex(projectKey: number, index: RangeIndex): void {
    this.#indexes.set(projectKey, index);
  }

  cachedDay(key: string, revision: number): DaySet | undefined {
    const cached = this.#days.get(key);
    if (!cached || cached.revision !== revision) return undefined;
    this.#days.delete(key);
    this.#days.set(key, cached);
    return cached.set;
  }

  storeDay(key: string, revision: number, set: DaySet): void {
    const previous = this.#days.get(key);
    if (previous) {
      this.#dayEntries -= previous.set.visitors.length;
      this.#days.delete(key);
    }
    this.#days.set(key, { revision, set });
    this.#dayEntries += set.visitors.length;
    for (const [oldest, cached] of this.#days) {
      if (this.#dayEntries <= daySetBudget) break;
      this.#days.delete(oldest);
      this.#dayEntries -= cached.set.visitors.length;
    }
  }

  cachedRanking(key: string, version: number): Ranking | undefined {
    const cached = this.#rankings.get(key);
    return cached && cached.version === version ? cached.ranking : undefined;
  }

  storeRanking(key: string, version: number, ranking: Ranking): void {
    this.#rankings.delete(key);
    this.#rankings.set(key, { version, ranking });
    if (this.#rankings.size > rankingCacheSize) this.#rankings.delete(this.#rankings.keys().next().value!);
  }

  /** Drops the in-memory state (a rebuild in this process replaced it). */
  forget(): void {
    this.#days.clear();
    this.#dayEntries = 0;
    this.#rankings.clear();
    this.#indexes.clear();
  }
}

const engines = new WeakMap<object, Engine>();

/** The engine of a database; every route and CLI verb of one process shares it. */
export function engineFor(storage: Storage): Engine {
  let engine = engines.get(storage.db);
  if (!engine) engines.set(storage.db, (engine = new Engine()));
  return engine;
}
