import { sql } from 'kysely';

export const dayMs = 24 * 60 * 60 * 1000;

/** The UTC day number (days since 1970-01-01) of an epoch-millisecond time. */
export function dayOf(at: number): number {
  return Math.floor(at / dayMs);
}

/** Splits [from, to) into whole UTC days and the partial pieces at either end. */
export function splitRange(from: number, to: number): { firstDay: number; endDay: number; partial: [number, number][] } {
  const firstDay = Math.ceil(from / dayMs);
  const endDay = Math.floor(to / dayMs);
  if (firstDay >= endDay) return { firstDay: 0, endDay: 0, partial: [[from, to]] };
  const partial: [number, number][] = [];
  if (from < firstDay * dayMs) partial.push([from, firstDay * dayMs]);
  if (to > endDay * dayMs) partial.push([endDay * dayMs, to]);
  return { firstDay, endDay, partial };
}

/** The UTC day of a raw event, spelled as the `analytics_events_day` index spells it so the index serves the search. */
export const eventDay = sql<number>`at / ${sql.lit(dayMs)}`;
