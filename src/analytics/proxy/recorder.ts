/**
 * What the proxy keeps of the requests it forwards, without ever making a response wait for it:
 * `record` only appends to a bounded in-memory batch (recorded-batch.ts); a background loop hands batches to the store
 * (a worker thread, store-worker.ts, so even a synchronous SQLite write or a lock held by another
 * process never blocks the event loop that serves responses). When the store fails, the batch is
 * kept and retried with backoff; when the list is full, new requests are dropped and counted. Each
 * request has a key (this process's id and a counter), so a batch retried after a commit whose
 * answer was lost is stored once.
 */
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { addCounts, countReason, type ReasonCounts } from '../capture/request-event.ts';
import { RecordedBatch, type RecordedRequest } from './recorded-batch.ts';

/** Stores a batch; rejects when the database is unavailable. */
export type RequestStore = (batch: RecordedBatch) => Promise<{ stored: number; duplicates: number; reasons: ReasonCounts; notes: ReasonCounts }>;

export interface RecorderOptions {
  store: RequestStore;
  logger: Logger;
  /** Requests held in memory at most (default 100,000); beyond, new ones are dropped and counted. */
  maxBuffered?: number;
  /** Requests per batch (default 5,000). */
  batchSize?: number;
  /** How long a request may wait for its batch, in milliseconds (default 500). */
  flushMilliseconds?: number;
  /** First retry delay after a failed write (default 1,000 ms), doubling up to 30 s. */
  retryMilliseconds?: number;
}

/** The proxy's recording counters, as `/.quire/proxy-status` and the shutdown summary show them. */
export interface RecorderStatus {
  recorded: number;
  stored: number;
  /** Requests that are not views, by reason (static assets, other methods, …). */
  skipped: ReasonCounts;
  /** Views stored with a change, by reason (a path kept escaped), as imports and drains count them. */
  notes: ReasonCounts;
  /** Requests dropped because the in-memory list was full while the database was slow or down. */
  dropped: number;
  buffered: number;
  failedWrites: number;
  /** The last write error while the database is failing; null once a write succeeded. */
  databaseError: string | null;
}

const maxRetryMilliseconds = 30_000;
const dropLogMilliseconds = 10_000;

export class ProxyRecorder {
  readonly #options: Required<Omit<RecorderOptions, 'store' | 'logger'>> & Pick<RecorderOptions, 'store' | 'logger'>;
  readonly #keyPrefix = `px${randomBytes(6).toString('base64url')}`;
  #counter = 0;
  /** Batches waiting for their write, oldest first; new requests go to the last one until it is full. */
  #batches: RecordedBatch[] = [];
  /** Requests in `#batches`. */
  #held = 0;
  /** The batch being written (or waiting for a retry); it stays counted in `buffered`. */
  #inFlight: RecordedBatch | undefined;
  #timer: NodeJS.Timeout | undefined;
  #writing: Promise<void> | undefined;
  #retryDelay: number;
  #lastDropLog = 0;
  #droppedSinceLog = 0;
  #closed = false;
  readonly counters: RecorderStatus = { recorded: 0, stored: 0, skipped: {}, notes: {}, dropped: 0, buffered: 0, failedWrites: 0, databaseError: null };

  constructor(options: RecorderOptions) {
    this.#options = { maxBuffered: 100_000, batchSize: 5_000, flushMilliseconds: 500, retryMilliseconds: 1_000, ...options };
    this.#retryDelay = this.#options.retryMilliseconds;
  }

  /** Notes a forwarded request; constant time, never throws, never waits. */
  record(request: RecordedRequest): void {
    this.counters.recorded++;
    if (this.#buffered() >= this.#options.maxBuffered || this.#closed) {
      this.counters.dropped++;
      this.#droppedSinceLog++;
      const now = Date.now();
      if (now - this.#lastDropLog >= dropLogMilliseconds) {
        this.#lastDropLog = now;
        this.#options.logger.warn(
          { dropped: this.#droppedSinceLog, droppedTotal: this.counters.dropped, buffered: this.#options.maxBuffered },
          'recording buffer full (database slow or down): dropping requests; they are still forwarded',
        );
        this.#droppedSinceLog = 0;
      }
      return;
    }
    let batch = this.#batches.at(-1);
    if (batch === undefined || batch.full) {
      batch = new RecordedBatch(this.#options.batchSize, this.#keyPrefix, this.#counter);
      this.#batches.push(batch);
    }
    batch.add(request);
    this.#counter++;
    this.#held++;
    this.#schedule(this.#fullBatchWaits() ? 0 : this.#options.flushMilliseconds);
  }

  #buffered(): number {
    return this.#held + (this.#inFlight?.length ?? 0);
  }

  #fullBatchWaits(): boolean {
    return this.#batches.length > 0 && this.#batches[0]!.full;
  }

  /** Counts a forwarded request that is not a view and has nothing to store (an upgraded connection). */
  skip(reason: string): void {
    this.counters.recorded++;
    countReason(this.counters.skipped, reason);
  }

  status(): RecorderStatus {
    return {
      ...this.counters,
      skipped: { ...this.counters.skipped },
      notes: { ...this.counters.notes },
      buffered: this.#buffered(),
    };
  }

  #schedule(delay: number): void {
    if (this.#writing || this.#closed) return;
    if (this.#timer && delay > 0) return;
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#writing = this.#write().finally(() => {
        this.#writing = undefined;
        // A failed batch is retried after its delay; otherwise what came meanwhile waits for a full batch or
        // its flush time, as new requests do (writing it at once made back-to-back commits of a few rows each).
        if (this.#inFlight) this.#schedule(this.#retryDelay);
        else if (this.#held > 0) this.#schedule(this.#fullBatchWaits() ? 0 : this.#options.flushMilliseconds);
      });
    }, delay);
    this.#timer.unref();
  }

  async #write(): Promise<void> {
    if (!this.#inFlight) {
      this.#inFlight = this.#batches.shift();
      if (!this.#inFlight) return;
      this.#held -= this.#inFlight.length;
    }
    try {
      const result = await this.#options.store(this.#inFlight);
      this.counters.stored += result.stored;
      addCounts(this.counters.skipped, result.reasons);
      addCounts(this.counters.notes, result.notes);
      if (this.counters.databaseError !== null) this.#options.logger.info({ stored: result.stored }, 'database available again: recording resumed');
      this.counters.databaseError = null;
      this.#retryDelay = this.#options.retryMilliseconds;
      this.#inFlight = undefined;
    } catch (error) {
      this.counters.failedWrites++;
      const message = error instanceof Error ? error.message : String(error);
      this.#options.logger.warn(
        { error: message, waiting: this.#buffered(), retryInMs: this.#retryDelay },
        'could not store recorded requests (database slow or down); keeping them and retrying, responses are not affected',
      );
      this.counters.databaseError = message;
      this.#retryDelay = Math.min(this.#retryDelay * 2, maxRetryMilliseconds);
    }
  }

  /**
   * Stops recording and stores what is held, trying for at most `waitMilliseconds`; what could not be
   * stored by then counts as dropped. Returns the final counters.
   */
  async close(waitMilliseconds = 5_000): Promise<RecorderStatus> {
    this.#closed = true;
    clearTimeout(this.#timer);
    const deadline = Date.now() + waitMilliseconds;
    while (this.#buffered() > 0 && Date.now() < deadline) {
      await (this.#writing ?? (this.#writing = this.#write().finally(() => (this.#writing = undefined))));
      if (this.#inFlight) await new Promise((resolve) => setTimeout(resolve, Math.min(200, Math.max(0, deadline - Date.now()))));
    }
    clearTimeout(this.#timer);
    this.counters.dropped += this.#buffered();
    this.#batches = [];
    this.#held = 0;
    this.#inFlight = undefined;
    return this.status();
  }
}
