import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { bootstrapIfEmpty, type FirstRun } from '../accounts/bootstrap.ts';
import { checkStoredSecrets } from '../accounts/connections.ts';
import { isJobActive } from '../jobs/active.ts';
import { relayRecordedRows } from '../jobs/events/relay.ts';
import { jobsChannel } from '../jobs/queue/enqueue.ts';
import { webhooksChannel } from '../jobs/webhooks/emit.ts';
import { DeliveryLoop } from '../jobs/webhooks/loop.ts';
import { checkWebhookSecrets } from '../jobs/webhooks/stored-secrets.ts';
import { Worker } from '../jobs/worker.ts';
import type { AgentSetup } from '../jobs/runner.ts';
import { openStorage, type Storage } from '../storage/open.ts';
import { buildApp } from './app.ts';
import { publicUrl, type Config } from '../config/config.ts';
import type { AppContext } from '../http/context.ts';
import { createContext, createLogger } from './context.ts';
import { startWorkspaceSweeper } from '../workspace/sweeper.ts';

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

export interface RunningService {
  context: AppContext;
  app: FastifyInstance | null;
  worker: Worker | null;
  /** Sends webhook deliveries; runs wherever a worker does. */
  deliveries: DeliveryLoop | null;
  /** Base URL the API listens on (with the real port when PORT=0). */
  url: string | null;
  /** Set when this start created the first organization, project and key. */
  firstRun: FirstRun | null;
  /** Stops claiming, lets jobs finish within the grace period, closes the server and database. */
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
  await Promise.all([checkStoredSecrets(storage.db, config), checkWebhookSecrets(storage.db, config)]).catch(async (error: unknown) => {
    if (!options.storage) await storage.close();
    throw error;
  });
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

  let worker: Worker | null = null;
  let deliveries: DeliveryLoop | null = null;
  let stopListening = async () => {};
  let stopSweeper = async () => {};
  if (options.worker) {
    const jobWorker = new Worker({
      storage,
      runner: context.agent.runner,
      logger: logger.child({ component: 'worker' }),
      concurrency: config.workerConcurrency,
      leaseMs: config.jobLeaseSeconds * 1000,
      pollMs: config.workerPollMs,
      cancelPollMs: config.jobCancelPollMs,
      onJobChanged: () => context.events.emit('webhooks-queued'),
    });
    const deliveryLoop = new DeliveryLoop({ storage, config, logger: logger.child({ component: 'webhooks' }) });
    context.events.on('job-enqueued', jobWorker.notify);
    context.events.on('job-cancelled', jobWorker.cancel);
    context.events.on('webhooks-queued', deliveryLoop.notify);
    // A job created by another process (PostgreSQL) comes with its job.created deliveries queued.
    const stopJobs = await storage.listen(jobsChannel, () => {
      jobWorker.notify();
      deliveryLoop.notify();
    });
    // Deliveries queued by another process (a cancel or a redelivery through its API, say).
    const stopWebhooks = await storage.listen(webhooksChannel, () => deliveryLoop.notify());
    stopListening = async () => {
      await stopJobs();
      await stopWebhooks();
    };
    jobWorker.start();
    deliveryLoop.start();
    worker = jobWorker;
    deliveries = deliveryLoop;
    stopSweeper = startWorkspaceSweeper(config.dataDir, (jobId) => isJobActive(storage.db, jobId), logger.child({ component: 'worker' }));
  }

  let stopping: Promise<void> | null = null;
  return {
    context,
    app,
    worker,
    deliveries,
    url,
    firstRun,
    stop() {
      stopping ??= (async () => {
        await app?.close();
        await stopListening();
        await worker?.stop(config.shutdownGraceSeconds * 1000);
        await deliveries?.stop();
        await stopSweeper();
        stopRelays();
        if (!options.storage) await storage.close();
      })();
      return stopping;
    },
  };
}
