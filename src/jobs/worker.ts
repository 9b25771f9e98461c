import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import { findProject } from '../accounts/projects.ts';
import { newId } from '../lib/ids.ts';
import type { Storage } from '../storage/dialect.ts';
import { claimRuns, type ClaimedRun } from './queue/claim.ts';
import { completeRun, type RunResult } from './queue/complete.ts';
import { extendLease } from './queue/heartbeat.ts';
import { releaseRun } from './queue/release.ts';
import { JobFailure, type AgentRunner } from './runner.ts';
import { appendMessage, listMessages } from './transcript.ts';
import { isWebLink } from './view.ts';

export interface WorkerOptions {
  storage: Storage;
  runner: AgentRunner;
  logger: Logger;
  /** Jobs run at once. */
  concurrency: number;
  /** A claimed job is reserved this long; heartbeats renew it every third of it. */
  leaseMs: number;
  /** How often an idle worker looks for work enqueued by other processes. */
  pollMs: number;
}

function invalidLink(link: string, branch: string): string {
  const shown = JSON.stringify(link.length > 100 ? `${link.slice(0, 100)}…` : link);
  return `The code host returned an invalid pull request link, ${shown}; Quire keeps only http and https links. The changes are on branch ${branch}. Check the code host's address in the configuration (GITHUB_API_URL, GITLAB_URL), then send a follow-up to retry.`;
}

class ShutdownAbort extends Error {}
class LeaseLost extends Error {}

/**
 * Claims runs from the durable queue and executes them through the `AgentRunner`. Work enqueued by
 * this process wakes it at once (`notify`); work from other processes is found by polling.
 */
export class Worker {
  readonly id = newId('wrk');
  readonly #options: WorkerOptions;
  readonly #running = new Map<string, { controller: AbortController; done: Promise<void> }>();
  #stopping = false;
  /** Set by `notify`, so a wake-up that arrives while claiming is not lost. */
  #pending = false;
  #wake: (() => void) | null = null;
  #loop: Promise<void> | null = null;

  constructor(options: WorkerOptions) {
    this.#options = options;
  }

  get activeRuns(): number {
    return this.#running.size;
  }

  start(): void {
    this.#loop ??= this.#run();
  }

  /** Look for work now (a job was just enqueued, or a slot freed). */
  notify = (): void => {
    this.#pending = true;
    this.#wake?.();
  };

  /**
   * Stops claiming, lets running jobs finish for up to `graceMs`, then aborts the rest and gives
   * them back to the queue so another worker can start them at once.
   */
  async stop(graceMs: number): Promise<void> {
    this.#stopping = true;
    this.notify();
    await this.#loop;
    const finished = Promise.all([...this.#running.values()].map((run) => run.done));
    const timedOut = await Promise.race([finished.then(() => false), sleep(graceMs).then(() => true)]);
    if (timedOut) {
      for (const run of this.#running.values()) run.controller.abort(new ShutdownAbort('worker shutting down'));
      await finished;
    }
  }

  async #run(): Promise<void> {
    const { logger, concurrency, pollMs } = this.#options;
    while (!this.#stopping) {
      this.#pending = false;
      const free = concurrency - this.#running.size;
      let claimed: ClaimedRun[] = [];
      if (free > 0) {
        try {
          claimed = await claimRuns(this.#options.storage, this.id, free, this.#options.leaseMs);
        } catch (error) {
          logger.error({ err: error }, 'could not claim jobs; retrying');
        }
        for (const run of claimed) this.#start(run);
      }
      if (!this.#pending && !this.#stopping && (claimed.length === 0 || claimed.length === free)) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, pollMs);
          this.#wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        this.#wake = null;
      }
    }
  }

  #start(claim: ClaimedRun): void {
    const controller = new AbortController();
    const done = this.#execute(claim, controller).finally(() => {
      this.#running.delete(claim.id);
      this.notify();
    });
    this.#running.set(claim.id, { controller, done });
  }

  async #execute(claim: ClaimedRun, controller: AbortController): Promise<void> {
    const { storage, runner, logger, leaseMs } = this.#options;
    const log = logger.child({ jobId: claim.jobId, runId: claim.id, attempt: claim.attempt });
    const heartbeat = setInterval(
      () => {
        extendLease(storage.db, claim.id, this.id, leaseMs).then(
          (held) => held || controller.abort(new LeaseLost('lease lost')),
          (error) => log.warn({ err: error }, 'heartbeat failed; will retry'),
        );
      },
      Math.max(500, Math.floor(leaseMs / 3)),
    );
    try {
      const job = await storage.db.selectFrom('jobs').selectAll().where('id', '=', claim.jobId).executeTakeFirstOrThrow();
      const project = await findProject(storage.db, job.project_id);
      if (!project) throw new JobFailure('The job’s project was deleted.');
      const messages = await listMessages(storage.db, job.id);
      const prompt = [...messages].reverse().find((message) => message.role === 'user')?.content.text;
      await appendMessage(storage.db, job.id, 'event', { type: 'job-started', attempt: claim.attempt });
      log.info('job started');
      const result: RunResult = await runner
        .run({
          job,
          project,
          prompt: typeof prompt === 'string' ? prompt : job.prompt,
          messages,
          state: job.runner_state ? JSON.parse(job.runner_state) : null,
          signal: controller.signal,
          record: (role, content) => appendMessage(storage.db, job.id, role, content),
        })
        .then(
          (outcome) =>
            outcome.prLink === null || isWebLink(outcome.prLink)
              ? { status: 'completed' as const, prLink: outcome.prLink, state: outcome.state, usage: outcome.usage }
              : { status: 'failed' as const, error: invalidLink(outcome.prLink, job.branch), usage: outcome.usage },
          (error: unknown) => {
            if (controller.signal.aborted) throw controller.signal.reason;
            if (error instanceof JobFailure) return { status: 'failed' as const, error: error.message, usage: error.usage };
            log.error({ err: error }, 'job runner crashed');
            return {
              status: 'failed' as const,
              error: `The agent stopped on an internal error (job ${job.id}); the server log has the details. Send a follow-up to retry.`,
            };
          },
        );
      const recorded = await completeRun(storage.db, claim.id, this.id, job.id, result);
      log.info({ status: result.status, recorded }, 'job finished');
    } catch (error) {
      if (error instanceof ShutdownAbort) {
        await releaseRun(storage.db, claim.id, this.id).catch((releaseError) => log.error({ err: releaseError }, 'could not release job'));
        log.info('job released at shutdown');
      } else if (error instanceof LeaseLost) {
        log.warn('lease lost; another worker owns the job now');
      } else if (error instanceof JobFailure) {
        await completeRun(storage.db, claim.id, this.id, claim.jobId, { status: 'failed', error: error.message, usage: error.usage });
      } else {
        // The run stays leased; when the lease expires it is retried (and failed after max attempts).
        log.error({ err: error }, 'job run failed unexpectedly');
      }
    } finally {
      clearInterval(heartbeat);
    }
  }
}
