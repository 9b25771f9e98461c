import { gapsDesk } from '../docs/gaps/desk.ts';
import pino, { type Logger } from 'pino';
import { createAgentSetup } from '../agent/setup.ts';
import { createAnalyticsState, directoryOptions } from '../analytics/state.ts';
import type { Config } from '../config/config.ts';
import { createAccountCaches } from '../accounts/request-auth.ts';
import { createDocsReader } from '../docs/reader.ts';
import { createEvents, type AppContext } from '../http/context.ts';
import { JobEventHub } from '../jobs/events/hub.ts';
import { JobReadCache } from '../jobs/read-cache.ts';
import type { AgentSetup } from '../jobs/runner.ts';
import type { Storage } from '../storage/dialect.ts';

export interface ContextOptions {
  logger?: Logger;
  /** Replaces the agent (tests use scripted runners). */
  agent?: AgentSetup;
}

export function createLogger(config: Config): Logger {
  return pino({
    level: config.logLevel,
    redact: { paths: ['req.headers.authorization', 'headers.authorization', '*.token', '*.apiKey'], censor: '[redacted]' },
  });
}

/** The one place a process's state is created: shared parts and every feature's own (see http/context.ts). */
export function createContext(config: Config, storage: Storage, options: ContextOptions = {}): AppContext {
  const logger = options.logger ?? createLogger(config);
  const events = createEvents();
  return {
    config,
    storage,
    logger,
    events,
    accounts: createAccountCaches(config.accountCacheMs),
    agent: options.agent ?? createAgentSetup(config, storage.db),
    jobReads: new JobReadCache(),
    jobEvents: new JobEventHub({ storage, logger, pollMs: config.eventsPollMs, heartbeatMs: config.eventsHeartbeatSeconds * 1000 }),
    analytics: createAnalyticsState(storage, directoryOptions(config), logger),
    docs: createDocsReader(storage, events),
    gaps: gapsDesk,
  };
}
