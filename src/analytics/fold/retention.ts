import type { Storage } from '../../storage/dialect.ts';
import { dayMs } from '../model/days.ts';

/**
 * Deletes raw events older than `days` days. Day sets stay: they hold only integers (no user agents,
 * no visitor keys) and keep whole-day counts answerable. A date-time bound inside a purged day counts
 * the raw events left there, which is none (see docs/analytics.md).
 */
export async function purgeExpiredEvents(storage: Storage, days: number, now = Date.now()): Promise<number> {
  const cutoff = now - days * dayMs;
  const result = await storage.db.deleteFrom('analytics_events').where('at', '<', cutoff).executeTakeFirst();
  return Number(result.numDeletedRows);
}
