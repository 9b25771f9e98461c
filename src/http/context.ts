import { EventEmitter } from 'node:events';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { keyChanges, projectChanges } from '../accounts/changes.ts';
import type { Config } from '../config/config.ts';
import { TtlCache } from '../lib/ttl-cache.ts';
import type { Storage } from '../storage/dialect.ts';
import type { ApiKeyRow, ProjectRow } from '../storage/tables/accounts.ts';

/** Events of one process; features declare theirs by augmenting this interface. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by declaration merging, which a type alias cannot take
export interface QuireEvents {}

/**
 * What every feature's routes and services are given: settings, database, logger, the process's
 * events and account caches. Features add their own per-process state by augmenting this
 * interface (`declare module '…/http/context.ts'`), and `server/context.ts` creates all of it, so
 * one process's state has one home.
 */
export interface AppContext {
  config: Config;
  storage: Storage;
  logger: Logger;
  events: EventEmitter<QuireEvents>;
  /**
   * API keys and projects that requests look up, reused for QUIRE_ACCOUNT_CACHE_MS. Revoking a key
   * or updating a project in this process empties them at once (see accounts/changes.ts).
   */
  accounts: AccountCaches;
}

export interface AccountCaches {
  /** Key rows by key hash. */
  keys: TtlCache<ApiKeyRow>;
  /** Project rows by project id. */
  projects: TtlCache<ProjectRow>;
}

export function createAccountCaches(ttlMs: number): AccountCaches {
  return { keys: new TtlCache(ttlMs, { generation: keyChanges }), projects: new TtlCache(ttlMs, { generation: projectChanges }) };
}

export function createEvents(): EventEmitter<QuireEvents> {
  // Listeners are the process's workers and streams, added and removed with them.
  return new EventEmitter<QuireEvents>();
}

/** A feature's routes: a Fastify plugin given the shared context. */
export type FeatureRoutes = (app: FastifyInstance, options: { context: AppContext }) => Promise<void>;
