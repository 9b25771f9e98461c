/**
 * A small in-process cache whose entries expire after `ttlMs`: for lookups that every request
 * repeats (API keys, projects) where a change may take up to `ttlMs` to be seen by other processes.
 */
export interface TtlCacheOptions {
  /** Entries kept at most (default 10,000); the oldest goes first. */
  maxEntries?: number;
  /** A count that moves whenever cached values may be stale: every entry is dropped when it does. */
  generation?: () => number;
}

export class TtlCache<V> {
  readonly #entries = new Map<string, { value: V; expires: number }>();
  readonly #ttlMs: number;
  readonly #maxEntries: number;
  readonly #generation: (() => number) | undefined;
  #seenGeneration: number | undefined;

  constructor(ttlMs: number, options: TtlCacheOptions = {}) {
    this.#ttlMs = ttlMs;
    this.#maxEntries = options.maxEntries ?? 10_000;
    this.#generation = options.generation;
    this.#seenGeneration = this.#generation?.();
  }

  /** Returns the cached value, or loads, caches and returns it (an undefined result is not cached). */
  async get(key: string, load: () => Promise<V | undefined>, now = Date.now()): Promise<V | undefined> {
    const generation = this.#generation?.();
    if (generation !== this.#seenGeneration) {
      this.#entries.clear();
      this.#seenGeneration = generation;
    }
    const entry = this.#entries.get(key);
    if (entry && entry.expires > now) return entry.value;
    const value = await load();
    if (value === undefined || this.#ttlMs <= 0) {
      this.#entries.delete(key);
      return value;
    }
    if (this.#entries.size >= this.#maxEntries) this.#entries.delete(this.#entries.keys().next().value as string);
    this.#entries.set(key, { value, expires: now + this.#ttlMs });
    return value;
  }

  delete(key: string): void {
    this.#entries.delete(key);
  }

  clear(): void {
    this.#entries.clear();
  }
}
