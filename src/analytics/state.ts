import pino, { type Logger } from 'pino';
import type { Config } from '../config/config.ts';
import type { Storage } from '../storage/dialect.ts';
import { StatisticsKeeper } from '../storage/statistics.ts';
import { Dictionary } from './ingest/dense-ids.ts';
import { createEventWriter, type IngestState } from './ingest/ingest.ts';
import { KeyDirectories, type DirectoryOptions } from './ingest/verify/key-directories.ts';
import { createAnalyticsSignals } from './model/signals.ts';
import { QueryCaches, type QueryState } from './query/caches.ts';

/**
 * Everything analytics keeps in one process for one database: dense-id caches, query caches, the
 * group-commit writer and the signals the background loop listens to. All of it is a cache or a
 * queue in front of the database, checked before use, so processes sharing a database stay exact.
 */
export type AnalyticsState = IngestState & QueryState;

/** Web Bot Auth directories: public hosts over https, answered within 3 seconds, unless the settings say otherwise. */
const directoryDefaults: DirectoryOptions = { allowPrivate: false, timeoutMs: 3000 };

/** How key directories are fetched, as the settings say (QUIRE_WEB_BOT_AUTH_*): the same for the server, imports, tails and the proxy. */
export const directoryOptions = (config: Pick<Config, 'webBotAuthAllowPrivate' | 'webBotAuthTimeoutMs'>): DirectoryOptions => ({
  allowPrivate: config.webBotAuthAllowPrivate,
  timeoutMs: config.webBotAuthTimeoutMs,
});

/** `logger` reports background work that failed (an ANALYZE, a recorded request); by default warnings go to standard output. */
export function createAnalyticsState(
  storage: Storage,
  directories: DirectoryOptions = directoryDefaults,
  logger: Pick<Logger, 'warn'> = pino({ level: 'warn' }),
): AnalyticsState {
  const ids = new Dictionary();
  const signals = createAnalyticsSignals();
  const statistics = new StatisticsKeeper(storage, {
    onError: (error) => logger.warn({ err: error }, 'analyzing tables after bulk writes failed; writing more retries'),
  });
  return {
    storage,
    ids,
    signals,
    caches: new QueryCaches(),
    writer: createEventWriter(storage, ids, signals, statistics),
    directories: new KeyDirectories(directories),
    statistics,
    logger,
  };
}

declare module '../http/context.ts' {
  interface AppContext {
    /** This process's analytics state of `storage` (see state.ts). */
    analytics: AnalyticsState;
  }
}
