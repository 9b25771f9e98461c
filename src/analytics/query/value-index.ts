/**
 * Range indexes (range-index.ts) over the value pages of the busiest countries and sources: a page's
 * visitors under one such value over any whole-day range are then a binary search per day, as an
 * unfiltered page's are, instead of a walk over the value's visitor lists (value-pages.ts, top-pages.ts).
 * A value holding a large share of the views (the visitors' main country, `Direct / None`) has lists
 * nearly as long as the day sets themselves, and walking them cost 40–50 ms of CPU per query at a third
 * of the bench's dataset; a smaller value's lists are short enough to walk. Built by the background loop
 * after the value pages, kept in memory; each is exact for the page revisions it was built from.
 */
import type { QueryState } from './caches.ts';
import type { RangeIndex } from './range-index.ts';

/** A project's value indexes, built together from the value pages of one snapshot. */
export interface ValueIndexes {
  /** The revision of each day's value pages the indexes were built from (`analytics_value_page_days`). */
  revisions: Map<number, number>;
  /** Keyed by `valueIndexKey`. */
  indexes: Map<string, RangeIndex>;
}

/** The key of a value's index: its property as stored (`valueProperties` of value-pages.ts) and its breakdown key. */
export const valueIndexKey = (property: number, valueKey: number) => `${property}:${valueKey}`;

/**
 * The index of one value when it serves the whole days [firstDay, endDay): every day of the range with
 * data (`withData`: day sets now, or pending views) has value pages in use (`usable`: day → revision of
 * pages whose fingerprint is current, none pending) at the revision the index holds, and the index
 * holds no day the range no longer has. Null otherwise.
 */
export function servingValueIndex(
  state: Pick<QueryState, 'caches'>,
  projectKey: number,
  filter: { propertyCode: number; valueKey: number },
  days: { firstDay: number; endDay: number; withData: Set<number>; usable: Map<number, number> },
): RangeIndex | null {
  const built = state.caches.valueIndexes<ValueIndexes>(projectKey);
  const index = built?.indexes.get(valueIndexKey(filter.propertyCode, filter.valueKey));
  if (built === undefined || index === undefined) return null;
  for (let day = days.firstDay; day < days.endDay; day++) {
    const revision = built.revisions.get(day);
    if (days.withData.has(day) ? revision === undefined || days.usable.get(day) !== revision : revision !== undefined) return null;
  }
  return index;
}
