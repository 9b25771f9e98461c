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

import { AnswerCache } from '../../lib/answer-cache.ts';

/** Answers kept per database. */
const maxEntries = 4096;
/** Characters of Markdown and text kept per database (about twice as many bytes). */
const maxCharacters = 32 * 1024 * 1024;

const caches = new WeakMap<object, AnswerCache<unknown>>();

/** The cache of answers read from `owner` (a database handle), made on first use. */
export function cacheFor<T>(owner: object, sizeOf: (value: T) => number): AnswerCache<T> {
  let cache = caches.get(owner) as AnswerCache<T> | undefined;
  if (!cache) {
    cache = new AnswerCache<T>(sizeOf, { entries: maxEntries, characters: maxCharacters });
    caches.set(owner, cache as AnswerCache<unknown>);
  }
  return cache;
}
