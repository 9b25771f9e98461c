import { newId } from '../../../lib/ids.ts';
import { claimBuild, type ClaimedBuild } from '../queue/claim.ts';
import { completeBuild } from '../queue/complete.ts';
import { failBuild } from '../queue/fail.ts';
import { extendBuildLease } from '../queue/heartbeat.ts';
import { releaseBuild } from '../queue/release.ts';
import { runBuild, type BuildContext } from './run.ts';

export interface BuilderOptions extends BuildContext {
  leaseMs: number;
  maxAttempts: number;
  /** How often an idle builder looks for builds requested by other processes. */
  pollMs: number;
}

/**
 * Claims requested docs builds and runs them, one at a time (a build is mostly git and parsing, on
 * the same cores as the jobs). A request in this process wakes it at once (`notify`); others are
 * found by polling or, on PostgreSQL, by notification. A build holds a lease renewed by heartbeats,
 * so when its process dies another builder takes it over once the lease lapses.
 */
export class DocsBuilder {
  readonly id = newId('wrk');
  readonly #options: BuilderOptions;
  #stopping = false;
  #pending = false;
  #wake: (() => void) | null = null;
  #loop: Promise<void> | null = null;
  #current: AbortController | null = null;

  constructor(options: BuilderOptions) {
    this.#options = options;
  }

  start(): void {
    this.#loop ??= this.#run();
  }

  notify = (): void => {
    this.#pending = true;
    this.#wake?.();
  };

  /** Stops claiming and interrupts the running build, whose request goes back to the queue for any builder. */
  async stop(): Promise<void> {
    this.#stopping = true;
    this.#current?.abort(new Error('builder stopping'));
    this.notify();
    await this.#loop;
  }

  async #run(): Promise<void> {
    const { storage, logger, leaseMs, maxAttempts, pollMs } = this.#options;
    while (!this.#stopping) {
      this.#pending = false;
      let claimed: ClaimedBuild | null = null;
      try {
        claimed = await claimBuild(storage, this.id, { leaseMs, maxAttempts });
        if (claimed) await this.#execute(claimed);
      } catch (error) {
        logger.error({ err: error }, 'docs builder: could not claim or record a build; retrying');
      }
      if (claimed === null && !this.#pending && !this.#stopping) {
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

  async #execute(claimed: ClaimedBuild): Promise<void> {
    const { storage, logger, leaseMs } = this.#options;
    const controller = new AbortController();
    this.#current = controller;
    const heartbeat = setInterval(
      () => {
        extendBuildLease(storage, claimed, this.id, leaseMs).then(
          (held) => held || controller.abort(new Error('lease lost')),
          (error) => logger.warn({ err: error, projectId: claimed.projectId }, 'docs build heartbeat failed; will retry'),
        );
      },
      Math.max(500, Math.floor(leaseMs / 3)),
    );
    try {
      const outcome = await runBuild(this.#options, claimed.projectId, controller.signal);
      if (outcome.ok) await completeBuild(storage, claimed, this.id, outcome.result);
      else if ('interrupted' in outcome) await releaseBuild(storage, claimed, this.id);
      else await failBuild(storage, claimed, this.id, outcome.tried);
    } finally {
      clearInterval(heartbeat);
      this.#current = null;
    }
  }
}
