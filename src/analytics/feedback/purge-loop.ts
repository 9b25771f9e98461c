import type { AppContext } from '../../http/context.ts';
import { runEvery } from '../../lib/run-every.ts';
import { purgeExpiredInteractions } from './retention.ts';

const purgeEveryMs = 60 * 60 * 1000;

/**
 * Purges feedback and searches past QUIRE_ANALYTICS_RETENTION_DAYS at start and every hour, like the
 * raw page views (0 keeps them forever). Returns how to stop, waiting for a purge under way.
 */
export function startPurging(context: AppContext): { stop(): Promise<void> } {
  const days = context.config.analyticsRetentionDays;
  if (days === 0) return { stop: async () => undefined };
  return runEvery(
    purgeEveryMs,
    () => purgeExpiredInteractions(context.storage, days),
    (error) => context.logger.warn({ err: error }, 'purging expired feedback and searches failed; the next hour retries'),
  );
}
