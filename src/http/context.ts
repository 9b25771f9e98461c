import { EventEmitter } from 'node:events';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { Config } from '../config/config.ts';
import type { Storage } from '../storage/dialect.ts';

/** Events of one process; features declare theirs by augmenting this interface. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by declaration merging, which a type alias cannot take
export interface QuireEvents {}

/**
 * What every feature's routes and services are given: settings, database, logger and the process's
 * events. Features add their own per-process state (accounts its request caches, say) by augmenting
 * this interface (`declare module '…/http/context.ts'`), and `server/context.ts` creates all of it,
 * so one process's state has one home.
 */
export interface AppContext {
  config: Config;
  storage: Storage;
  logger: Logger;
  events: EventEmitter<QuireEvents>;
}

export function createEvents(): EventEmitter<QuireEvents> {
  // Listeners are the process's workers and streams, added and removed with them.
  return new EventEmitter<QuireEvents>();
}

/** A feature's routes: a Fastify plugin given the shared context. */
export type FeatureRoutes = (app: FastifyInstance, options: { context: AppContext }) => Promise<void>;
