/**
 * A map bounded by its count of entries and by the sum of their sizes (`sizeOf`, in characters or any unit), least recently used leaving
 * first: what a flood of distinct keys costs is bounded, and it pushes out only what it displaced. The
 * docs search keeps its answers in one (docs/search/cache.ts), and what its engines read per term.
 */

/**
 * `make`'s value for each owner (a database handle), made on first use and gone with the owner: what a
 * process keeps per database, such as the caches below.
 */
export function perOwner<T>(make: () => T): (owner: object) => T {
  const made = new WeakMap<object, T>();
  return (owner) => {
    let value = made.get(owner);
    if (value === undefined) made.set(owner, (value = make()));
    return value;
  };
}

export class AnswerCache<T> {
  readonly #entries = new Map<string, { value: T; size: number }>();
  #characters = 0;

  readonly limits: { entries: number; characters: number };
  readonly sizeOf: (value: T) => number;

  constructor(sizeOf: (value: T) => number, limits: { entries: number; characters: number }) {
    this.sizeOf = sizeOf;
    this.limits = limits;
  }

  get(key: string): T | undefined {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    // Map keeps insertion order: taking the entry out and back in makes it the most recent.
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    return entry.value;
  }

  set(key: string, value: T): void {
    const size = this.sizeOf(value);
    if (size > this.limits.characters) return;
    const earlier = this.#entries.get(key);
    if (earlier) {
      this.#entries.delete(key);
      this.#characters -= earlier.size;
    }
    this.#entries.set(key, { value, size });
    this.#characters += size;
    for (const [oldest, entry] of this.#entries) {
      if (this.#entries.size <= this.limits.entries && this.#characters <= this.limits.characters) break;
      this.#entries.delete(oldest);
      this.#characters -= entry.size;
    }
  }

  get size(): number {
    return this.#entries.size;
  }
}
