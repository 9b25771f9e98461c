import type { Logger } from 'pino';
import type { QueryState } from '../query/caches.ts';
import { warmBreakdownDays } from '../query/breakdown-sources.ts';
import { indexSpanDays, refreshIndex } from '../query/range-index-refresh.ts';
import { refreshValuePages } from '../query/value-pages-build.ts';
import { refreshValueIndexes } from '../query/value-index-build.ts';
import { refreshDimensionIndexes } from '../query/dimension-days.ts';
import { refreshReferrerIndex } from '../query/breakdowns.ts';
import { foldInBackground, projectsWithPending } from './fold.ts';
import { reclassifyIfChanged } from './reclassify.ts';
import { purgeExpiredEvents } from './retention.ts';
import { releaseFreedMemoryIfGrown } from '../../lib/release-memory.ts';

/** How soon committed events are folded into day sets; queries count them before that, from pending. */
const foldDelayMs = 250;
/** Sweep for batches committed by other processes (or left by a crash). */
const sweepMs = 10_000;
const retentionMs = 60 * 60 * 1000;
/**
 * A range index (and the indexes rebuilt after it) is rebuilt once the project's commits have been quiet this
 * long, or at the latest after `indexMaxWaitMs`. Quiet is measured from commits, not folds: a fold that takes
 * longer than this under a load (the writing thread busy) left a gap that started a rebuild, which took the
 * event loop for seconds at 10,000,000 views, so folds fell further behind and left longer gaps, and one
 * load ran at half the rate with a rebuild every few seconds.
 */
const indexQuietMs = 1_000;
const indexMaxWaitMs = 5 * 60_000;
/**
 * A rebuild starts no sooner than this many times the last one's duration after it ended (unless the
 * longest wait has passed): on a large project with a view every few seconds, rebuilds would otherwise
 * follow one another and keep the event loop busy. Four keeps them under a fifth of the time.
 */
const indexSpacing = 4;
/**
 * Visits ingestion doubted are repaired once folds have been quiet this long, or at the latest after
 * `repairMaxWaitMs`: a repair reads whole days of the doubted visitors, once for all the doubts of a day.
 */
const repairQuietMs = 500;
const repairMaxWaitMs = 5_000;

export interface BackgroundOptions {
  logger: Logger;
  /** Days raw events are kept; 0 keeps them forever. */
  retentionDays: number;
}

/**
 * Background work of a serving process: folds pending batches into day sets shortly after they are
 * committed, repairs the visits ingestion doubted (fold/visit-repair.ts) soon after, sweeps for other
 * processes' leftovers, rebuilds range indexes (and dimension indexes, value pages and value indexes: query/dimension-days.ts,
 * value-pages-build.ts, value-index-build.ts) after day sets changed or a repair moved views,
 * and purges raw events past the retention period. At start, it reclassifies history when the AI agent
 * lists changed (reclassify.ts), beside the folds so ingestion goes on. It listens to the state's signals and stops
 * listening when stopped, so several loops on one state never undo each other.
 */
export function startBackgroundLoop(state: QueryState, { logger, retentionDays }: BackgroundOptions): { stop(): Promise<void> } {
  const { storage, signals } = state;
  const scheduled = new Set<number>();
  let running: Promise<unknown> = Promise.resolve();
  let stopped = false;

  const timers = new Set<NodeJS.Timeout>();
  const later = (delay: number, task: () => void) => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      task();
    }, delay);
    timers.add(timer);
    return timer;
  };

  const indexing = new Map<number, { timer: NodeJS.Timeout; since: number }>();
  /** Per project, when its last rebuild ended and how long it took (for `indexSpacing`). */
  const rebuilt = new Map<number, { endedAt: number; tookMs: number }>();
  /** Projects whose rebuild is queued or under way, and whether another was asked for meanwhile (scheduled once it ends, spaced by its cost). */
  const rebuilding = new Map<number, boolean>();
  const index = (projectKey: number) => {
    indexing.delete(projectKey);
    rebuilding.set(projectKey, false);
    let startedAt = 0;
    running = running
      .then(() => (startedAt = Date.now()))
      // A rebuild follows a burst of commits (or the longest wait under a load): what that burst left in the heap goes
      // back to the system before the indexes and value pages are computed on top of it (lib/release-memory.ts).
      .then(() => (stopped ? undefined : releaseFreedMemoryIfGrown()))
      .then(() => (stopped ? undefined : refreshIndex(state, projectKey)))
      .then(() => (stopped ? undefined : warmBreakdownDays(state, projectKey, indexSpanDays)))
      .then(() => (stopped ? undefined : refreshDimensionIndexes(state, projectKey, indexSpanDays)))
      .then(() => (stopped ? undefined : refreshReferrerIndex(state, projectKey, indexSpanDays)))
      .then(() => void rebuilt.set(projectKey, { endedAt: Date.now(), tookMs: Date.now() - startedAt }))
      .then(() => pagesLater(projectKey))
      .catch((error: unknown) => logger.warn({ err: error, projectKey }, 'building the analytics range index failed; queries count from day sets meanwhile'))
      .finally(() => {
        const again = rebuilding.get(projectKey);
        rebuilding.delete(projectKey);
        if (again) indexLater(projectKey);
      });
  };
  // Value pages read raw events, a day at a time: on a chain of their own, so folds go on meanwhile.
  let paging: Promise<unknown> = Promise.resolve();
  const pagesLater = (projectKey: number) => {
    paging = paging
      .then(() => (stopped ? undefined : refreshValuePages(state, projectKey, indexSpanDays, () => stopped)))
      .then(() => (stopped ? undefined : refreshValueIndexes(state, projectKey, indexSpanDays)))
      // And what the value pages and indexes left.
      .then(() => (stopped ? undefined : releaseFreedMemoryIfGrown()))
      .catch((error: unknown) =>
        logger.warn({ err: error, projectKey }, 'computing analytics value pages failed; filtered queries count raw events meanwhile'),
      );
  };
  const indexLater = (projectKey: number) => {
    if (stopped) return;
    if (rebuilding.has(projectKey)) {
      rebuilding.set(projectKey, true);
      return;
    }
    const waiting = indexing.get(projectKey);
    const now = Date.now();
    const since = waiting?.since ?? now;
    if (waiting) {
      clearTimeout(waiting.timer);
      timers.delete(waiting.timer);
    }
    const last = rebuilt.get(projectKey);
    const spaced = last === undefined ? 0 : last.endedAt + indexSpacing * last.tookMs - now;
    const delay = Math.max(0, Math.min(Math.max(indexQuietMs, spaced), since + indexMaxWaitMs - now));
    indexing.set(projectKey, { timer: later(delay, () => index(projectKey)), since });
  };
  signals.on('index-stale', indexLater);
  // A commit while a rebuild waits for quiet starts the quiet period over.
  const commitWhileWaiting = (projectKey: number) => {
    if (indexing.has(projectKey)) indexLater(projectKey);
  };
  signals.on('events-committed', commitWhileWaiting);

  const repairing = new Map<number, { timer: NodeJS.Timeout; since: number }>();
  const repair = (projectKey: number) => {
    repairing.delete(projectKey);
    running = running
      .then(() => (stopped ? undefined : foldInBackground(storage, projectKey, { repair: true, onRepaired: () => indexLater(projectKey) })))
      .catch((error: unknown) => logger.warn({ err: error, projectKey }, 'repairing analytics visits failed; the next sweep retries'));
  };
  // Visit doubts are repaired once folds have been quiet for a moment, or at the latest every few seconds.
  const repairLater = (projectKey: number) => {
    if (stopped) return;
    const waiting = repairing.get(projectKey);
    const since = waiting?.since ?? Date.now();
    if (waiting) {
      clearTimeout(waiting.timer);
      timers.delete(waiting.timer);
    }
    const delay = Math.max(0, Math.min(repairQuietMs, since + repairMaxWaitMs - Date.now()));
    repairing.set(projectKey, { timer: later(delay, () => repair(projectKey)), since });
  };

  const fold = (projectKey: number) => {
    scheduled.delete(projectKey);
    running = running
      .then(async () => {
        if (stopped) return;
        if ((await foldInBackground(storage, projectKey, { repair: false })) > 0) indexLater(projectKey);
        repairLater(projectKey);
      })
      .catch((error: unknown) => logger.warn({ err: error, projectKey }, 'folding analytics batches failed; the next sweep retries'));
  };
  const foldSoon = (projectKey: number) => {
    if (stopped || scheduled.has(projectKey)) return;
    scheduled.add(projectKey);
    later(foldDelayMs, () => fold(projectKey));
  };
  signals.on('events-committed', foldSoon);
  const sweep = setInterval(() => {
    projectsWithPending(storage.db).then(
      (keys) => keys.forEach(fold),
      (error: unknown) => logger.warn({ err: error }, 'analytics sweep failed'),
    );
  }, sweepMs);
  const purge = () => {
    if (retentionDays === 0) return;
    running = running
      .then(() => purgeExpiredEvents(storage, retentionDays))
      .catch((error: unknown) => logger.warn({ err: error }, 'purging expired analytics events failed'));
  };
  const retention = setInterval(purge, retentionMs);
  sweep.unref();
  retention.unref();
  purge();
  const reclassifying = reclassifyIfChanged(state, logger, () => stopped).catch((error: unknown) =>
    logger.warn({ err: error }, 'reclassifying analytics history failed; the next start retries, or run "quire analytics rebuild"'),
  );

  return {
    async stop() {
      stopped = true;
      clearInterval(sweep);
      clearInterval(retention);
      for (const timer of timers) clearTimeout(timer);
      signals.off('events-committed', foldSoon);
      signals.off('index-stale', indexLater);
      signals.off('events-committed', commitWhileWaiting);
      await Promise.all([running, reclassifying]);
      await paging;
    },
  };
}
