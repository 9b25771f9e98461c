/**
 * Answers already given, per database, keyed by the project's generation: a generation's rows never
 * change once readers see it (a build writes the next one beside it and switches in one statement),
 * so an answer for (project, generation, switch time, query, options) stays right until the switch,
 * after which its key is never asked again and it ages out. The switch time is in the key as well as
 * the generation so that a project whose index was removed and built again from generation 1 cannot
 * meet an answer of the earlier index.
 *
 * Least recently used answers leave first, bounded by count and by the characters they hold, so a
 * flood of distinct queries costs a bounded amount of memory and pushes out only what it displaced.
 */

/** Answers kept per database. */
const maxEntries = 4096;
/** Characters of Markdown and text kept per database (about twice as many bytes). */
const maxCharacters = 32 * 1024 * 1024;

export class AnswerCache<T> {
  readonly #entries = new Map<string, { value: T; size: number }>();
  #characters = 0;

  readonly limits: { entries: number; characters: number };
  readonly sizeOf: (value: T) => number;

  constructor(sizeOf: (value: T) => number, limits = { entries: maxEntries, characters: maxCharacters }) {
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

const caches = new WeakMap<object, AnswerCache<unknown>>();

/** The cache of answers read from `owner` (a database handle), made on first use. */
export function cacheFor<T>(owner: object, sizeOf: (value: T) => number): AnswerCache<T> {
  let cache = caches.get(owner) as AnswerCache<T> | undefined;
  if (!cache) {
    cache = new AnswerCache<T>(sizeOf);
    caches.set(owner, cache as AnswerCache<unknown>);
  }
  return cache;
}
