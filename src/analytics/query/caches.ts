import type { Storage } from '../../storage/dialect.ts';
import type { Dictionary } from '../ingest/dense-ids.ts';
import type { DaySet } from '../model/day-set.ts';
import type { AnalyticsSignals } from '../model/signals.ts';
import type { Ranking } from './types.ts';
import type { RangeIndex } from './range-index.ts';

interface CachedDay {
  revision: number;
  set: DaySet;
}

/** A computed answer (a path ranking, or a breakdown's) of one data version. */
interface CachedRanking {
  version: number;
  ranking: unknown;
}

/** Decoded day sets kept in memory, in visitor entries (4 bytes each): about 256 MiB. */
const daySetBudget = 64 * 1024 * 1024;
const rankingCacheSize = 128;

/**
 * What queries keep in memory: decoded day sets, computed rankings and range, dimension and value indexes. Each is checked
 * against the database (day-set revisions, the project's version) before use, so several processes
 * sharing one database stay correct.
 */
export class QueryCaches {
  readonly #days = new Map<string, CachedDay>();
  #dayEntries = 0;
  readonly #rankings = new Map<string, CachedRanking>();
  readonly #indexes = new Map<number, RangeIndex>();
  /** Dimension indexes (dimension-index.ts), keyed `project:property`. */
  readonly #dimensionIndexes = new Map<string, unknown>();
  /** Value indexes (value-index.ts), one set per project. */
  readonly #valueIndexes = new Map<number, unknown>();

  index(projectKey: number): RangeIndex | undefined {
    return this.#indexes.get(projectKey);
  }

  storeIndex(projectKey: number, index: RangeIndex): void {
    this.#indexes.set(projectKey, index);
  }

  /** The dimension index stored under `key`; keys name the property, so the type is the one stored. */
  dimensionIndex<T>(key: string): T | undefined {
    return this.#dimensionIndexes.get(key) as T | undefined;
  }

  storeDimensionIndex<T>(key: string, index: T): void {
    this.#dimensionIndexes.set(key, index);
  }

  /** The project's value indexes; only value-index.ts stores them, so the type is the one stored. */
  valueIndexes<T>(projectKey: number): T | undefined {
    return this.#valueIndexes.get(projectKey) as T | undefined;
  }

  storeValueIndexes<T>(projectKey: number, indexes: T): void {
    this.#valueIndexes.set(projectKey, indexes);
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

  /** The answer stored under `key` for `version`; keys name what was computed, so the type is the one stored. */
  cachedRanking<T = Ranking>(key: string, version: number): T | undefined {
    const cached = this.#rankings.get(key);
    return cached && cached.version === version ? (cached.ranking as T) : undefined;
  }

  storeRanking<T = Ranking>(key: string, version: number, ranking: T): void {
    this.#rankings.delete(key);
    this.#rankings.set(key, { version, ranking });
    if (this.#rankings.size > rankingCacheSize) this.#rankings.delete(this.#rankings.keys().next().value!);
  }
}

/** What queries use of the process's analytics state (see ../state.ts). */
export interface QueryState {
  storage: Storage;
  ids: Dictionary;
  caches: QueryCaches;
  /** Told when a query finds a range index missing or behind. */
  signals: AnalyticsSignals;
}
