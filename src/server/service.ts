import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { bootstrapIfEmpty, type FirstRun } from '../accounts/bootstrap.ts';
import { checkStoredSecrets } from '../accounts/connections.ts';
import { checkDrainSecrets } from '../analytics/drains/stored-secrets.ts';
import { relayRecordedRows } from '../jobs/events/relay.ts';
import { webhooksChannel } from '../jobs/webhooks/emit.ts';
import { checkWebhookSecrets } from '../jobs/webhooks/stored-secrets.ts';
import type { AgentSetup } from '../jobs/runner.ts';
import { openToOthers } from '../lib/private-files.ts';
import { openStorage, type Storage } from '../storage/open.ts';
import { buildApp } from './app.ts';
import { startBackgroundLoops, type ExposedLoops, type Role } from './background.ts';
import { publicUrl, type Config } from '../config/config.ts';
import type { AppContext } from '../http/context.ts';
import { createContext, createLogger } from './context.ts';

export interface ServiceOptions {
  config: Config;
  /** Serve the HTTP API (false for `quire worker`). */
  api: boolean;
  /** Run a worker in this process (false for `quire serve --no-worker`). */
  worker: boolean;
  logger?: Logger;
  /** Replaces the agent (tests use scripted runners). */
  agent?: AgentSetup;
  storage?: Storage;
  /** On an empty database, create the first organization, project and admin key. */
  bootstrap?: boolean;
}

export interface RunningService extends ExposedLoops {
  context: AppContext;
  app: FastifyInstance | null;
  /** Base URL the API listens on (with the real port when PORT=0). */
  url: string | null;
  /** Set when this start created the first organization, project and key. */
  firstRun: FirstRun | null;
  /** Closes the server, stops the background loops (jobs finish within the grace period), closes the database. */
  stop(): Promise<void>;
}

/** Why the server could not listen, as what to change; other errors as they are. */
function listenFailure(error: unknown, config: Config): unknown {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'EADDRINUSE') return new Error(`port ${config.port} is in use: stop the other Quire or set PORT to a free port.`, { cause: error });
  if (code === 'EACCES') return new Error(`port ${config.port} needs privileges this process does not have: set PORT to 1024 or above.`, { cause: error });
  if (code === 'EADDRNOTAVAIL')
    return new Error(`HOST ${config.host} is not an address of this machine: set HOST to one of its addresses, or 0.0.0.0 for all.`, { cause: error });
  return error;
}

/**
 * Starts the API and/or a worker on the configured database. The API listens before anything else
 * starts; when it cannot, everything opened is closed again and the error says what to change.
 */
export async function startService(options: ServiceOptions): Promise<RunningService> {
  const { config } = options;
  const logger = options.logger ?? createLogger(config);
  const storage =
    options.storage ??
    (await openStorage(config, { onConnectionError: (error) => logger.error({ err: error }, 'database connection lost; the pool will reconnect') }));
  // One after another: the error names the first holder whose values the keys cannot open, the same one every start
  // (side by side on PostgreSQL, whichever query answered first decided, and a test of the message failed now and then).
  try {
    for (const check of [checkStoredSecrets, checkWebhookSecrets, checkDrainSecrets]) await check(storage.db, config);
  } catch (error) {
    if (!options.storage) await storage.close();
    throw error;
  }
  // Quire makes the data directory 0700; one the operator made is left as it is, with a word when others can read it.
  const dataDirMode = openToOthers(config.dataDir);
  if (dataDirMode !== null)
    logger.warn(
      { dataDir: config.dataDir, mode: dataDirMode },
      `The data directory ${config.dataDir} is open to other users than Quire's (mode ${dataDirMode}), but holds the database, the secret key and workspaces: run "chmod 700 ${config.dataDir}".`,
    );
  const context = createContext(config, storage, { logger, agent: options.agent });
  // Other processes (PostgreSQL) hear at once of job events and webhook deliveries this one records.
  const stopRelay = relayRecordedRows(storage, logger);
  const relayWebhooks = () =>
    void storage.notify(storage.db, webhooksChannel).catch((error: unknown) => {
      logger.warn({ err: error }, 'could not notify other processes of queued webhook deliveries; they find them at their next poll');
    });
  context.events.on('webhooks-queued', relayWebhooks);
  const stopRelays = () => {
    stopRelay();
    context.events.off('webhooks-queued', relayWebhooks);
  };

  // Listen first: a process that cannot serve must not take jobs, nor create and print a first key nobody sees.
  let app: FastifyInstance | null = null;
  let url: string | null = null;
  if (options.api) {
    app = await buildApp(context);
    try {
      await app.listen({ port: config.port, host: config.host });
    } catch (error) {
      await app.close();
      stopRelays();
      if (!options.storage) await storage.close();
      throw listenFailure(error, config);
    }
    const address = app.server.address();
    const port = typeof address === 'object' && address ? address.port : config.port;
    url = config.publicUrl ?? publicUrl({ ...config, port });
  }
  const firstRun = options.bootstrap ? await bootstrapIfEmpty(storage, { model: config.model }) : null;

  const roles: Role[] = [];
  if (options.api) roles.push('api');
  if (options.worker) roles.push('worker');
  const loops = await startBackgroundLoops(context, roles);

  let stopping: Promise<void> | null = null;
  return {
    context,
    app,
    worker: loops.worker,
    deliveries: loops.deliveries,
    url,
    firstRun,
    stop() {
      stopping ??= (async () => {
        await app?.close();
        await loops.stop();
        stopRelays();
        if (!options.storage) await storage.close();
      })();
      return stopping;
    },
  };
}
