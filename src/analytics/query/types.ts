import type { ClassCode } from '../model/class-codes.ts';
import type { DaySet } from '../model/day-set.ts';
import type { CountedView } from '../model/pending-batch.ts';

/** The types the query stage passes between its files. */

export type Measure = 'visitors' | 'views';

export interface Counts {
  human: number;
  ai: number;
  total: number;
}

/** Every path with views in a range, ordered by total descending then path ascending, and site totals. */
export interface Ranking {
  totals: Counts;
  rows: (Counts & { pathId: number })[];
}

/** A ranking whose rows may leave `human` and `ai` at -1 until `split` counts them (the range index orders by total alone). */
export interface SplitRanking extends Ranking {
  split?: (row: Ranking['rows'][number]) => void;
}

/** A decoded day set with the revision it was read at. */
export interface IndexedDay {
  day: number;
  classCode: ClassCode;
  revision: number;
  set: DaySet;
}

/** Everything a query counts, read in one snapshot: whole-day sets plus loose views (pending or partial-day). */
export interface Sources {
  days: IndexedDay[];
  loose: CountedView[];
}
