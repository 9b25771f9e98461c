import type { Logger } from 'pino';
import { findProject } from '../accounts/projects.ts';
import { newId } from '../lib/ids.ts';
import type { Storage } from '../storage/dialect.ts';
import { claimRuns, type ClaimedRun } from './queue/claim.ts';
import { completeRun, type RunResult } from './queue/complete.ts';
import { extendLease } from './queue/heartbeat.ts';
import { releaseRun } from './queue/release.ts';
import { JobFailure, type AgentRunner } from './runner.ts';
import { announceRecorded, appendMessage, listMessages } from './transcript.ts';
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
  /** How often a busy worker checks that its runs were not cancelled by another process (default 500). */
  cancelPollMs?: number;
  /** Called after a run's outcome is committed (the service wakes its webhook delivery loop). */
  onJobChanged?: () => void;
}

function invalidLink(link: string, branch: string): string {
  const shown = JSON.stringify(link.length > 100 ? `${link.slice(0, 100)}…` : link);
  return `The code host returned an invalid pull request link, ${shown}; Quire keeps only http and https links. The changes are on branch ${branch}. Check the code host's address in the configuration (GITHUB_API_URL, GITLAB_URL), then send a follow-up to retry.`;
}

class ShutdownAbort extends Error {}
/** The run's queue entry is gone or held by another worker: the job was cancelled, or the lease expired. */
class RunWithdrawn extends Error {}

/**
 * Claims runs from the durable queue and executes them through the `AgentRunner`. Work enqueued by
 * this process wakes it at once (`notify`); work from other processes is found by polling.
 */
export class Worker {
  readonly id = newId('wrk');
  readonly #options: WorkerOptions;
  readonly #running = new Map<string, { jobId: string; controller: AbortController; done: Promise<void> }>();
  #stopping = false;
  /** Set by `notify`, so a wake-up that arrives while claiming is not lost. */
  #pending = false;
  #wake: (() => void) | null = null;
  #loop: Promise<void> | null = null;
  #cancelPoll: NodeJS.Timeout | null = null;

  constructor(options: WorkerOptions) {
    this.#options = options;
  }

  /** Aborts this worker's run of `jobId`, if it has one (the job was just cancelled in this process). */
  cancel = (jobId: string): void => {
    for (const run of this.#running.values()) if (run.jobId === jobId) run.controller.abort(new RunWithdrawn('job cancelled'));
  };

  /**
   * While runs are going, checks every `cancelPollMs` which of them this worker still holds, in one
   * query: a cancel in another process removes the run's queue entry.
   */
  #pollCancels(): void {
    if (this.#cancelPoll || this.#running.size === 0) return;
    this.#cancelPoll = setTimeout(async () => {
      // Runs started after this point are claimed already, so the query below sees them.
      const runs = [...this.#running.entries()];
      try {
        const held = await this.#options.storage.db.selectFrom('job_queue').select('id').where('locked_by', '=', this.id).execute();
        const heldIds = new Set(held.map((row) => row.id));
        for (const [runId, run] of runs) if (!heldIds.has(runId)) run.controller.abort(new RunWithdrawn('run withdrawn'));
      } catch (error) {
        this.#options.logger.warn({ err: error }, 'could not check for cancelled jobs; will retry');
      }
      this.#cancelPoll = null;
      this.#pollCancels();
    }, this.#options.cancelPollMs ?? 500);
  }

  /** Whether this worker still holds run `runId`; aborts it when not, so nothing more is published. */
  async #stillHeld(runId: string, controller: AbortController): Promise<boolean> {
    if (controller.signal.aborted) return false;
    const held = await this.#options.storage.db
      .selectFrom('job_queue')
      .select('id')
      .where('id', '=', runId)
      .where('locked_by', '=', this.id)
      .executeTakeFirst();
    if (!held) controller.abort(new RunWithdrawn('run withdrawn'));
    return held !== undefined;
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
    // The grace timer is cleared once the runs finish, so stopping an idle worker does not wait it out.
    let graceTimer: NodeJS.Timeout | undefined;
    const grace = new Promise<boolean>((resolve) => (graceTimer = setTimeout(() => resolve(true), graceMs)));
    const timedOut = await Promise.race([finished.then(() => false), grace]);
    clearTimeout(graceTimer);
    if (timedOut) {
      for (const run of this.#running.values()) run.controller.abort(new ShutdownAbort('worker shutting down'));
      await finished;
    }
    if (this.#cancelPoll) clearTimeout(this.#cancelPoll);
    this.#cancelPoll = null;
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
    this.#running.set(claim.id, { jobId: claim.jobId, controller, done });
    this.#pollCancels();
  }

  async #execute(claim: ClaimedRun, controller: AbortController): Promise<void> {
    const { storage, runner, logger, leaseMs } = this.#options;
    const log = logger.child({ jobId: claim.jobId, runId: claim.id, attempt: claim.attempt });
    const heartbeat = setInterval(
      () => {
        extendLease(storage.db, claim.id, this.id, leaseMs).then(
          (held) => held || controller.abort(new RunWithdrawn('lease lost')),
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
      // A job cancelled while this worker claimed it has no queue entry any more: start nothing.
      if (!(await this.#stillHeld(claim.id, controller))) throw controller.signal.reason;
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
          // A withdrawn run records nothing more: its job's stream has ended with the cancel.
          record: async (role, content) => {
            if (!controller.signal.aborted) await appendMessage(storage.db, job.id, role, content);
          },
          stillRunning: () => this.#stillHeld(claim.id, controller),
        })
        .then(
          (outcome) =>
            outcome.prLink === null || isWebLink(outcome.prLink)
              ? { status: 'completed' as const, prLink: outcome.prLink, state: outcome.state, usage: outcome.usage, pullRequest: outcome.pullRequest }
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
      if (recorded) {
        announceRecorded(job.id);
        this.#options.onJobChanged?.();
      }
      log.info({ status: result.status, recorded }, 'job finished');
    } catch (error) {
      if (error instanceof ShutdownAbort) {
        await releaseRun(storage.db, claim.id, this.id).catch((releaseError) => log.error({ err: releaseError }, 'could not release job'));
        log.info('job released at shutdown');
      } else if (error instanceof RunWithdrawn) {
        log.warn(`run withdrawn (${error.message}); the job was cancelled or another worker owns it now`);
      } else if (error instanceof JobFailure) {
        if (await completeRun(storage.db, claim.id, this.id, claim.jobId, { status: 'failed', error: error.message, usage: error.usage })) {
          announceRecorded(claim.jobId);
          this.#options.onJobChanged?.();
        }
      } else {
        // The run stays leased; when the lease expires it is retried (and failed after max attempts).
        log.error({ err: error }, 'job run failed unexpectedly');
      }
    } finally {
      clearInterval(heartbeat);
    }
  }
}
