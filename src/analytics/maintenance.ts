import type { AppContext } from '../server/context.ts';
import { engineFor } from './engine.ts';
import { foldPending, projectsWithPending } from './indexer.ts';
import { purgeExpiredEvents } from './retention.ts';

/** How soon committed events are folded into day sets; queries count them before that, from pending. */
const foldDelayMs = 250;
/** Sweep for batches committed by other processes (or left by a crash). */
const sweepMs = 10_000;
const retentionMs = 60 * 60 * 1000;

/**
 * Background work of a serving process: folds pending batches into day sets shortly after they are
 * committed, sweeps for other processes' leftovers, and purges raw events past the retention period.
 */
export function startMaintenance(context: AppContext): { stop(): Promise<void> } {
  const { storage, logger, config } = context;
  const engine = engineFor(storage);
  const scheduled = new Set<number>();
  let running: Promise<unknown> = Promise.resolve();
  let stopped = false;

  const fold = (projectKey: number) => {
    scheduled.delete(projectKey);
    running = running
      .then(() => (stopped ? 0 : foldPending(storage, projectKey)))
      .catch((error: unknown) => logger.warn({ err: error, projectKey }, 'folding analytics batches failed; the next sweep retries'));
  };
  const timers = new Set<NodeJS.Timeout>();
  engine.onCommitted = (projectKey) => {
    if (stopped || scheduled.has(projectKey)) return;
    scheduled.add(projectKey);
    const timer = setTimeout(() => {
      timers.delete(timer);
      fold(projectKey);
    }, foldDelayMs);
    timers.add(timer);
  };
  const sweep = setInterval(() => {
    projectsWithPending(storage.db).then(
      (keys) => keys.forEach(fold),
      (error: unknown) => logger.warn({ err: error }, 'analytics sweep failed'),
    );
  }, sweepMs);
  const purge = () => {
    if (config.analyticsRetentionDays === 0) return;
    running = running
      .then(() => purgeExpiredEvents(storage, config.analyticsRetentionDays))
      .catch((error: unknown) => logger.warn({ err: error }, 'purging expired analytics events failed'));
  };
  const retention = setInterval(purge, retentionMs);
  sweep.unref();
  retention.unref();
  purge();

  return {
    async stop() {
      stopped = true;
      clearInterval(sweep);
      clearInterval(retention);
      for (const timer of timers) clearTimeout(timer);
      engine.onCommitted = () => {};
      await running;
    },
  };
}
