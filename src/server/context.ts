import { EventEmitter } from 'node:events';
import type { Logger } from 'pino';
import type { AgentSetup } from '../jobs/runner.ts';
import type { Storage } from '../storage/dialect.ts';
import type { Config } from './config.ts';

export interface QuireEvents {
  /** A job run was committed to the queue by this process; local workers wake up at once. */
  'job-enqueued': [];
}

/** What every feature's routes and services are given: settings, database, logger, agent. */
export interface AppContext {
  config: Config;
  storage: Storage;
  logger: Logger;
  events: EventEmitter<QuireEvents>;
  agent: AgentSetup;
}

export function createEvents(): EventEmitter<QuireEvents> {
  const events = new EventEmitter<QuireEvents>();
  events.setMaxListeners(0);
  return events;
}
