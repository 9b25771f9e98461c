import { sql } from 'kysely';
import type { Storage } from '../../storage/dialect.ts';
import { dayMs, dayOf } from '../model/days.ts';

/**
 * Deletes raw events older than `days` days. Day sets stay: they hold only integers (no user agents,
 * no visitor keys) and keep whole-day counts answerable. A date-time bound inside a purged day counts
 * the raw events left there, which is none (see docs/analytics.md). The 404 counts docs gaps check
 * their kept evidence against go for the emptied days, and the count of the day the cutoff falls in
 * moves on, so evidence kept for it (even by a read racing this purge) is computed again.
 */
export async function purgeExpiredEvents(storage: Storage, days: number, now = Date.now()): Promise<number> {
  const cutoff = now - days * dayMs;
  const result = await storage.db.deleteFrom('analytics_events').where('at', '<', cutoff).executeTakeFirst();
  await storage.db.deleteFrom('analytics_not_found_days').where('day', '<', dayOf(cutoff)).execute();
  await storage.db
    .updateTable('analytics_not_found_days')
    .set({ failures: sql`failures + 1` })
    .where('day', '=', dayOf(cutoff))
    .execute();
  // 404s' kept days and blocks (codes 1, 3 and 5 in gap-days.ts) that start before the cutoff.
  await storage.db.deleteFrom('analytics_gap_days').where('source', 'in', [1, 3, 5]).where('day', '<', dayOf(cutoff)).execute();
  return Number(result.numDeletedRows);
}
