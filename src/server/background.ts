/**
 * Every background loop of a Quire process, in one list: the loop, which roles run it, how it starts
 * and stops. `quire serve` has both roles, `quire serve --no-worker` the api role, `quire worker` the
 * worker role; the service starts the loops of its roles in this order and stops them in reverse.
 * Route plugins start none. docs/scaling.md says which role runs which loop and why.
 */
import { closeGaps } from '../docs/gaps/closure.ts';
import { startGapsRefresh } from '../docs/gaps/refresh-loop.ts';
import { isJobActive } from '../jobs/active.ts';
import { sessionLeaseMs } from '../workspace/session-lease.ts';
import { startWorkspaceSweeper } from '../workspace/sweeper.ts';
import { startPurging } from '../analytics/feedback/purge-loop.ts';
import { startBackgroundLoop } from '../analytics/fold/background.ts';
import type { AppContext } from '../http/context.ts';
import { startRateLimitCleanup } from '../http/rate-limit-cleanup.ts';
import { jobsChannel } from '../jobs/queue/enqueue.ts';
import { webhooksChannel } from '../jobs/webhooks/emit.ts';
import { DeliveryLoop } from '../jobs/webhooks/loop.ts';
import { Worker } from '../jobs/worker.ts';
import { DocsBuilder } from '../docs/index/build/builder.ts';
import { startSourcePoll } from '../docs/index/build/poll.ts';
import { gitSource } from '../docs/index/build/source.ts';
import { requestBuild } from '../docs/index/build/status.ts';
import { docsBuildsChannel } from '../docs/index/queue/enqueue.ts';

export type Role = 'api' | 'worker';

/** The loops a running service exposes (tests and `quire serve`'s first lines read them). */
export interface ExposedLoops {
  worker: Worker | null;
  /** Sends webhook deliveries; runs wherever a worker does. */
  deliveries: DeliveryLoop | null;
}

interface Started extends Partial<ExposedLoops> {
  stop(): Promise<void>;
}

interface BackgroundLoop {
  name: string;
  roles: readonly Role[];
  /** `running` holds what the loops started before this one expose. */
  start(context: AppContext, running: ExposedLoops): Started | Promise<Started>;
}

export const backgroundLoops: readonly BackgroundLoop[] = [
  {
    // Every process: an API folds the batches it commits within a quarter second and keeps its own
    // range index (a per-process cache its queries read); a worker sweeps up batches of processes that
    // fold nothing themselves (`quire proxy`, a crashed node). Folds are unions, so two processes
    // folding one batch lose nothing. The loop also reclassifies history at start when the agent lists
    // changed, and purges raw events past the retention period.
    name: 'analytics fold',
    roles: ['api', 'worker'],
    start: ({ analytics, logger, config }) => startBackgroundLoop(analytics, { logger, retentionDays: config.analyticsRetentionDays }),
  },
  {
    // Beside the raw events' purge in the fold loop, wherever it runs: purges are idempotent deletes of whole days.
    name: 'feedback purge',
    roles: ['api', 'worker'],
    start: (context) => startPurging(context),
  },
  {
    // Wherever limits are taken (an API) and wherever the rest of the housekeeping runs (a worker): the
    // deletes skip rows in use and are idempotent, so several processes at once lose nothing.
    name: 'rate-limit clean-up',
    roles: ['api', 'worker'],
    start: (context) => startRateLimitCleanup(context),
  },
  {
    name: 'workspace sweeper',
    roles: ['worker'],
    // A checkout of an admin MCP session stays, saved (its job completed) or not: one of this process, and one whose
    // lease another process (the API's) renews while the session may still be used.
    start: ({ storage, config, logger, adminSessions }) => ({
      stop: startWorkspaceSweeper(
        config.dataDir,
        async (jobId) => adminSessions.holds(jobId) || (await isJobActive(storage.db, jobId)),
        logger.child({ component: 'worker' }),
        { sessionLeaseMs: sessionLeaseMs(config.mcpSessionIdleMinutes) },
      ),
    }),
  },
  {
    // Sessions live in the API process that opened them: it ends the idle ones, and all of them when it stops.
    name: 'admin MCP sessions',
    roles: ['api'],
    start: ({ adminSessions, logger }) => {
      const endIdle = () => void adminSessions.endIdle().catch((error: unknown) => logger.warn({ err: error }, 'could not end idle admin MCP sessions'));
      const timer = setInterval(endIdle, 60_000).unref();
      return {
        async stop() {
          clearInterval(timer);
          await adminSessions.endAll();
        },
      };
    },
  },
  {
    // Gap ids are stored and gap.opened sent on this write side, so the gaps list only reads.
    name: 'docs gaps',
    roles: ['worker'],
    start: (context) => startGapsRefresh(context),
  },
  {
    name: 'webhook deliveries',
    roles: ['worker'],
    async start(context) {
      const deliveries = new DeliveryLoop({ storage: context.storage, config: context.config, logger: context.logger.child({ component: 'webhooks' }) });
      context.events.on('webhooks-queued', deliveries.notify);
      // Deliveries queued by another process (a cancel or a redelivery through its API, say).
      const stopListening = await context.storage.listen(webhooksChannel, () => deliveries.notify());
      deliveries.start();
      return {
        deliveries,
        async stop() {
          await stopListening();
          context.events.off('webhooks-queued', deliveries.notify);
          await deliveries.stop();
        },
      };
    },
  },
  {
    name: 'job worker',
    roles: ['worker'],
    async start(context, running) {
      const { config, storage } = context;
      const worker = new Worker({
        storage,
        runner: context.agent.runner,
        logger: context.logger.child({ component: 'worker' }),
        concurrency: config.workerConcurrency,
        leaseMs: config.jobLeaseSeconds * 1000,
        pollMs: config.workerPollMs,
        cancelPollMs: config.jobCancelPollMs,
        onJobChanged: () => context.events.emit('webhooks-queued'),
      });
      context.events.on('job-enqueued', worker.notify);
      context.events.on('job-cancelled', worker.cancel);
      // A job created by another process (PostgreSQL) comes with its job.created deliveries queued.
      const stopListening = await storage.listen(jobsChannel, () => {
        worker.notify();
        running.deliveries?.notify();
      });
      worker.start();
      return {
        worker,
        async stop() {
          await stopListening();
          await worker.stop(config.shutdownGraceSeconds * 1000);
          context.events.off('job-enqueued', worker.notify);
          context.events.off('job-cancelled', worker.cancel);
        },
      };
    },
  },
  {
    // Wherever a project is saved (an API's routes and dashboard): its docs build is queued there, and
    // a builder in any process takes it.
    name: 'docs build requests',
    roles: ['api', 'worker'],
    start(context) {
      const onSourceChanged = ({ projectId }: { projectId: string }) =>
        void requestBuild(context.storage, context.events, projectId).catch((error: unknown) =>
          context.logger.error({ err: error, projectId }, 'could not request a docs build'),
        );
      context.events.on('project-source-changed', onSourceChanged);
      return { stop: async () => void context.events.off('project-source-changed', onSourceChanged) };
    },
  },
  {
    // Builds read repositories and parse pages, like jobs: on workers, which also poll the sources.
    name: 'docs builder',
    roles: ['worker'],
    async start(context) {
      const { config, storage } = context;
      const logger = context.logger.child({ component: 'docs' });
      const builder = new DocsBuilder({
        storage,
        config,
        logger,
        source: gitSource,
        afterBuild: (projectId, snapshot) => closeGaps({ ...context, logger }, projectId, snapshot),
        leaseMs: config.docsBuildLeaseSeconds * 1000,
        maxAttempts: config.docsBuildMaxAttempts,
        pollMs: Math.max(config.workerPollMs, 1000),
      });
      context.events.on('docs-build-requested', builder.notify);
      const stopListening = await storage.listen(docsBuildsChannel, () => builder.notify());
      const stopPolling = startSourcePoll({ storage, config, logger, source: gitSource, onRequested: builder.notify });
      builder.start();
      return {
        async stop() {
          await stopPolling();
          await stopListening();
          context.events.off('docs-build-requested', builder.notify);
          await builder.stop();
        },
      };
    },
  },
];

/**
 * Starts, in list order, the loops of `roles` (each once, whatever roles the process has). Returns
 * what they expose and how to stop them all, in reverse order; when one fails to start, those started
 * are stopped again.
 */
export async function startBackgroundLoops(context: AppContext, roles: readonly Role[]): Promise<ExposedLoops & { stop(): Promise<void> }> {
  const running: ExposedLoops = { worker: null, deliveries: null };
  const started: Started[] = [];
  const stop = async () => {
    for (const loop of started.splice(0).reverse()) await loop.stop();
  };
  try {
    for (const loop of backgroundLoops) {
      if (!loop.roles.some((role) => roles.includes(role))) continue;
      const handle = await loop.start(context, running);
      started.push(handle);
      running.worker = handle.worker ?? running.worker;
      running.deliveries = handle.deliveries ?? running.deliveries;
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return { ...running, stop };
}
