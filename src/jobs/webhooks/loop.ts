import type { Logger } from 'pino';
import type { Config } from '../../config/config.ts';
import { newId } from '../../lib/ids.ts';
import type { Storage } from '../../storage/dialect.ts';
import { claimDeliveries, type ClaimedDelivery } from './claim.ts';
import { pruneDeliveries } from './deliveries.ts';
import { recordAttempts, type FinishedAttempt, type RetryPolicy } from './record.ts';
import { PinnedAgents, sendOnce, type AttemptOutcome } from './send.ts';
import { openSecret, signedHeaders } from './signing.ts';

const pruneEveryMs = 3_600_000;

/** Longest wait before finished attempts are recorded (their slots are free only then). */
const recordDelayMs = 25;

export interface DeliveryLoopOptions {
  storage: Storage;
  config: Config;
  logger: Logger;
  /** Overrides the retry schedule derived from the settings (tests use short delays). */
  policy?: Partial<RetryPolicy>;
}

/** The retry schedule of the settings: first retry after 5 s, doubling up to an hour, for QUIRE_WEBHOOK_RETRY_HOURS. */
export function retryPolicy(config: Config): RetryPolicy {
  return {
    retryWindowMs: config.webhookRetryHours * 3_600_000,
    disableAfterMs: config.webhookDisableAfterHours * 3_600_000,
    firstDelayMs: 5000,
    maxDelayMs: 3_600_000,
  };
}

/**
 * Sends due webhook deliveries, in every process that runs workers. Deliveries committed by this
 * process wake it at once (`notify`); those of other processes are found by polling. Each attempt is
 * claimed with a lease, so two processes never send the same attempt, and recorded when it ends.
 */
export class DeliveryLoop {
  readonly id = newId('wrk');
  readonly #options: DeliveryLoopOptions;
  readonly #policy: RetryPolicy;
  readonly #inFlight = new Set<Promise<void>>();
  /** Finished attempts waiting for the next commit, with how to tell their senders it happened. */
  #finished: { attempt: FinishedAttempt; done: () => void }[] = [];
  #recording = false;
  #recordTimer: NodeJS.Timeout | undefined;
  #pruneTimer: NodeJS.Timeout | undefined;
  readonly #agents = new PinnedAgents();
  #stopping = false;
  #pending = false;
  #wake: (() => void) | null = null;
  #loop: Promise<void> | null = null;

  constructor(options: DeliveryLoopOptions) {
    this.#options = options;
    this.#policy = { ...retryPolicy(options.config), ...options.policy };
  }

  start(): void {
    this.#loop ??= this.#run();
    this.#pruneTimer ??= setInterval(() => void this.prune(), pruneEveryMs).unref();
  }

  /** Deletes what has been in the delivery log longer than QUIRE_WEBHOOK_LOG_DAYS (hourly; any process may, all may). */
  async prune(now = Date.now()): Promise<number> {
    const { storage, config, logger } = this.#options;
    try {
      return await pruneDeliveries(storage.db, now - config.webhookLogDays * 86_400_000);
    } catch (error) {
      logger.warn({ err: error }, 'could not prune the webhook delivery log; will retry');
      return 0;
    }
  }

  /** Look for due deliveries now. */
  notify = (): void => {
    this.#pending = true;
    this.#wake?.();
  };

  /** Stops claiming and waits for the attempts in flight (each bounded by the delivery timeout). */
  async stop(): Promise<void> {
    this.#stopping = true;
    clearInterval(this.#pruneTimer);
    this.#pruneTimer = undefined;
    this.notify();
    await this.#loop;
    await Promise.all(this.#inFlight);
    await this.#agents.close();
    // Stopped: `start` may run it again.
    this.#loop = null;
    this.#stopping = false;
  }

  get #leaseMs(): number {
    // Long enough for the attempt and its recording; a process that dies mid-attempt frees it after this.
    return this.#options.config.webhookTimeoutMs * 2 + 30_000;
  }

  async #run(): Promise<void> {
    const { storage, config, logger } = this.#options;
    while (!this.#stopping) {
      this.#pending = false;
      const free = config.webhookConcurrency - this.#inFlight.size;
      let claimed: ClaimedDelivery[] = [];
      if (free > 0) {
        try {
          claimed = await claimDeliveries(storage, this.id, free, this.#leaseMs);
        } catch (error) {
          logger.error({ err: error }, 'could not claim webhook deliveries; retrying');
        }
        for (const delivery of claimed) this.#start(delivery);
      }
      if (!this.#pending && !this.#stopping && claimed.length < free) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, config.webhookPollMs);
          this.#wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        this.#wake = null;
      } else if (!this.#pending && claimed.length === 0) {
        // Every slot is busy: the next finished attempt wakes the loop.
        await new Promise<void>((resolve) => (this.#wake = resolve));
        this.#wake = null;
      }
    }
  }

  #start(delivery: ClaimedDelivery): void {
    const done: Promise<void> = this.#attempt(delivery).finally(() => {
      this.#inFlight.delete(done);
      // Claim again once half the slots are free, not per finished attempt: one claim (and commit) serves many.
      const free = this.#options.config.webhookConcurrency - this.#inFlight.size;
      if (free * 2 >= this.#options.config.webhookConcurrency || this.#inFlight.size === 0) this.notify();
    });
    this.#inFlight.add(done);
  }

  async #attempt(delivery: ClaimedDelivery): Promise<void> {
    const { config, logger } = this.#options;
    const log = logger.child({ deliveryId: delivery.id, endpointId: delivery.endpoint.id, attempt: delivery.attempt });
    const startedAt = Date.now();
    let outcome: AttemptOutcome;
    try {
      const { endpoint } = delivery;
      const secrets = [openSecret(config, endpoint.secret)];
      if (endpoint.previous_secret && (endpoint.previous_secret_until ?? 0) > startedAt) secrets.push(openSecret(config, endpoint.previous_secret));
      const headers = signedHeaders(secrets, delivery.id, new Date(startedAt), delivery.payload);
      outcome = await sendOnce(endpoint.url, headers, delivery.payload, {
        timeoutMs: config.webhookTimeoutMs,
        allowPrivate: config.webhooksAllowPrivate,
        agents: this.#agents,
      });
    } catch (error) {
      log.error({ err: error }, 'could not sign a webhook delivery');
      outcome = {
        statusCode: null,
        durationMs: 0,
        error: 'Quire could not read the endpoint’s signing secret (see the server log); rotate the secret.',
        excerpt: null,
      };
    }
    await new Promise<void>((done) => {
      this.#finished.push({ attempt: { claim: delivery, outcome, startedAt }, done });
      this.#scheduleRecording();
    });
  }

  /**
   * The receiver has its delivery already; recording can wait a little so that one commit serves
   * many attempts: until every attempt in flight has finished, or `recordDelayMs` after the first.
   */
  #scheduleRecording(): void {
    if (this.#recording) return;
    if (this.#finished.length >= this.#inFlight.size) {
      clearTimeout(this.#recordTimer);
      this.#recordTimer = undefined;
      this.#recording = true;
      setImmediate(() => void this.#record());
    } else {
      this.#recordTimer ??= setTimeout(() => {
        this.#recordTimer = undefined;
        if (this.#recording) return;
        this.#recording = true;
        void this.#record();
      }, recordDelayMs);
    }
  }

  /**
   * Records finished attempts in groups: those that finish while a commit is under way go into the
   * next one together, so a burst of deliveries costs a few commits, not one each.
   */
  async #record(): Promise<void> {
    const { storage, logger } = this.#options;
    while (this.#finished.length > 0) {
      const group = this.#finished.splice(0, 500);
      try {
        const recorded = await recordAttempts(
          storage.db,
          this.id,
          group.map((entry) => entry.attempt),
          this.#policy,
        );
        if (recorded < group.length) logger.warn({ lost: group.length - recorded }, 'webhook delivery leases lost before their attempts were recorded');
      } catch (error) {
        // The leases expire and the attempts are made again: at least once.
        logger.error({ err: error }, 'could not record webhook delivery attempts');
      }
      for (const entry of group) entry.done();
    }
    this.#recording = false;
    // Attempts that finished during the commit and were not taken by it.
    if (this.#finished.length > 0) this.#scheduleRecording();
  }
}
