import { EventEmitter } from 'node:events';
import type { Logger } from 'pino';
import { accountChanges } from '../accounts/changes.ts';
import type { ApiKeyRow, ProjectRow } from '../storage/tables/accounts.ts';
import { TtlCache } from '../lib/ttl-cache.ts';
import type { JobReadCache } from '../jobs/read-cache.ts';
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
  /**
   * API keys and projects that requests look up, reused for QUIRE_ACCOUNT_CACHE_MS. Revoking a key
   * or updating a project in this process empties them at once (see accounts/changes.ts).
   */
  accounts: AccountCaches;
  /** JSON of polled jobs while nothing has changed (see jobs/read-cache.ts). */
  jobReads: JobReadCache;
}

export interface AccountCaches {
  /** Key rows by key hash. */
  keys: TtlCache<ApiKeyRow>;
  /** Project rows by project id. */
  projects: TtlCache<ProjectRow>;
}

export function createAccountCaches(ttlMs: number): AccountCaches {
  const caches: AccountCaches = { keys: new TtlCache(ttlMs), projects: new TtlCache(ttlMs) };
  accountChanges.on('key-revoked', () => caches.keys.clear());
  accountChanges.on('project-updated', (projectId) => caches.projects.delete(projectId));
  return caches;
}

export function createEvents(): EventEmitter<QuireEvents> {
  const events = new EventEmitter<QuireEvents>();
  events.setMaxListeners(0);
  return events;
}
