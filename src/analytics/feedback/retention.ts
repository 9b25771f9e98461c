import type { Storage } from '../../storage/dialect.ts';
import { dayMs, dayOf } from '../model/days.ts';

/**
 * Deletes feedback and searches older than `days` days, with their per-day aggregates and docs gaps'
 * kept evidence of those days (comments, contacts and search queries are what readers typed, so
 * nothing of them outlives the raw events).
 * Whole UTC days go at once, so an aggregate never counts items that are gone: a day is deleted once
 * all of it is older than the retention period.
 */
export async function purgeExpiredInteractions(storage: Storage, days: number, now = Date.now()): Promise<number> {
  const cutoffDay = dayOf(now - days * dayMs);
  const cutoff = cutoffDay * dayMs;
  return storage.db.transaction().execute(async (trx) => {
    const feedback = await trx.deleteFrom('analytics_feedback').where('at', '<', cutoff).executeTakeFirst();
    const searches = await trx.deleteFrom('analytics_searches').where('at', '<', cutoff).executeTakeFirst();
    for (const table of [
      'analytics_feedback_days',
      'analytics_search_days',
      'analytics_search_clicks',
      'analytics_search_totals',
      'analytics_gap_days',
    ] as const) {
      await trx.deleteFrom(table).where('day', '<', cutoffDay).execute();
    }
    return Number(feedback.numDeletedRows) + Number(searches.numDeletedRows);
  });
}
