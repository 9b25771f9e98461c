import type { Logger } from 'pino';
import type { Storage } from '../../storage/dialect.ts';
import type { JobStatus } from '../../storage/tables/jobs.ts';
import { recordedRows } from '../transcript.ts';
import { readFrames, type Frame } from './frames.ts';
import { jobEventsChannel } from './relay.ts';

/** One client of a job's stream: where it is in the job's sequence, and how to reach it. */
export interface Subscriber {
  /** The last sequence number it was sent (`Last-Event-ID`), -1 for none. */
  cursor: number;
  /** The job's status as last sent to it (its status when it subscribed, before any status event). */
  status: JobStatus;
  /** Writes SSE text; false when its socket is backed up past the limit (it is then dropped). */
  write(text: string): boolean;
  /** Closes its stream. */
  end(): void;
}

export interface HubOptions {
  storage: Storage;
  logger: Logger;
  /** How often channels look for rows other processes recorded (on PostgreSQL, notifications wake them sooner). */
  pollMs: number;
  /** Interval of comment lines to every subscriber. */
  heartbeatMs: number;
}

/** A job's subscribers; while it reads, new wake-ups only mark it to read again. */
interface Channel {
  jobId: string;
  subscribers: Set<Subscriber>;
  reading: boolean;
  dirty: boolean;
}

/** Rows read per query; a longer backlog is read in several rounds. */
const batchSize = 500;
const terminal = (status: JobStatus) => status !== 'active';

/**
 * Fans each job's events out to all its subscribers: one database read per job and wake-up, whatever
 * the number of subscribers, each frame serialized once. Woken at once by rows this process records
 * (`recordedRows`); on PostgreSQL by other processes' notifications (relay.ts), from the first
 * subscriber until `close`; and every `pollMs` for rows of other processes whose notification was lost
 * (on SQLite only when the change clock moved). A subscriber is closed once it has been sent
 * everything and the job's status is not `active`.
 */
export class JobEventHub {
  readonly #options: HubOptions;
  readonly #channels = new Map<string, Channel>();
  #timers: NodeJS.Timeout[] = [];
  #clock: number | undefined;
  /** Listening for other processes' notifications (PostgreSQL); resolves to how to stop. */
  #listening: Promise<() => Promise<void>> | undefined;

  constructor(options: HubOptions) {
    this.#options = options;
  }

  /** Starts sending `subscriber` the job's rows after its cursor; returns how to stop. */
  subscribe(jobId: string, subscriber: Subscriber): () => void {
    if (this.#channels.size === 0) this.#start();
    this.#listening ??= this.#listen();
    let channel = this.#channels.get(jobId);
    if (!channel) {
      channel = { jobId, subscribers: new Set(), reading: false, dirty: false };
      this.#channels.set(jobId, channel);
    }
    channel.subscribers.add(subscriber);
    this.#wake(jobId);
    return () => this.#remove(jobId, subscriber);
  }

  /** Ends every stream and stops listening (the server is closing). */
  async close(): Promise<void> {
    for (const channel of this.#channels.values()) for (const subscriber of channel.subscribers) subscriber.end();
    this.#channels.clear();
    this.#stop();
    const listening = this.#listening;
    this.#listening = undefined;
    await (
      await listening
    )?.();
  }

  get subscriberCount(): number {
    let count = 0;
    for (const channel of this.#channels.values()) count += channel.subscribers.size;
    return count;
  }

  #remove(jobId: string, subscriber: Subscriber): void {
    const channel = this.#channels.get(jobId);
    if (!channel?.subscribers.delete(subscriber)) return;
    if (channel.subscribers.size === 0) this.#channels.delete(jobId);
    if (this.#channels.size === 0) this.#stop();
  }

  #onRecorded = (jobId: string): void => this.#wake(jobId);

  /** A notification names a job; an empty one (after reconnecting) may stand for any. */
  #listen(): Promise<() => Promise<void>> {
    const { storage, logger } = this.#options;
    return storage
      .listen(jobEventsChannel, (jobId) => {
        if (jobId !== '') return this.#wake(jobId);
        for (const id of this.#channels.keys()) this.#wake(id);
      })
      .catch((error: unknown) => {
        logger.warn({ err: error }, 'could not listen for job events of other processes; streams find them by polling');
        return async () => {};
      });
  }

  #start(): void {
    recordedRows.on('recorded', this.#onRecorded);
    const { storage, pollMs, heartbeatMs } = this.#options;
    this.#clock = storage.changeClock?.();
    this.#timers = [
      setInterval(() => {
        const clock = storage.changeClock?.();
        if (clock !== undefined && clock === this.#clock) return;
        this.#clock = clock;
        for (const jobId of this.#channels.keys()) this.#wake(jobId);
      }, pollMs),
      setInterval(() => {
        for (const channel of this.#channels.values()) for (const subscriber of [...channel.subscribers]) this.#send(channel, subscriber, ': heartbeat\n\n');
      }, heartbeatMs),
    ];
  }

  #stop(): void {
    recordedRows.off('recorded', this.#onRecorded);
    for (const timer of this.#timers) clearInterval(timer);
    this.#timers = [];
  }

  #wake(jobId: string): void {
    const channel = this.#channels.get(jobId);
    if (!channel) return;
    channel.dirty = true;
    if (!channel.reading) void this.#drain(channel);
  }

  async #drain(channel: Channel): Promise<void> {
    channel.reading = true;
    try {
      while (channel.dirty && channel.subscribers.size > 0) {
        channel.dirty = false;
        let from = Number.MAX_SAFE_INTEGER;
        for (const subscriber of channel.subscribers) from = Math.min(from, subscriber.cursor);
        const frames = await readFrames(this.#options.storage.db, channel.jobId, from, batchSize);
        const complete = frames.length < batchSize;
        if (!complete) channel.dirty = true;
        this.#deliver(channel, frames, complete);
      }
    } catch (error) {
      // The next poll tries again; the subscribers keep their cursors.
      this.#options.logger.warn({ err: error, jobId: channel.jobId }, 'could not read job events; will retry');
    } finally {
      channel.reading = false;
    }
  }

  #deliver(channel: Channel, frames: Frame[], complete: boolean): void {
    const all = frames.map((frame) => frame.text).join('');
    for (const subscriber of [...channel.subscribers]) {
      const first = frames.findIndex((frame) => frame.seq > subscriber.cursor);
      if (first >= 0) {
        const text =
          first === 0
            ? all
            : frames
                .slice(first)
                .map((frame) => frame.text)
                .join('');
        for (let index = first; index < frames.length; index++) if (frames[index].status) subscriber.status = frames[index].status!;
        subscriber.cursor = frames[frames.length - 1].seq;
        if (!this.#send(channel, subscriber, text)) continue;
      }
      if (complete && terminal(subscriber.status)) {
        subscriber.end();
        this.#remove(channel.jobId, subscriber);
      }
    }
  }

  /** Writes to one subscriber; drops it (it can resume with Last-Event-ID) when it does not keep up. */
  #send(channel: Channel, subscriber: Subscriber, text: string): boolean {
    if (subscriber.write(text)) return true;
    subscriber.end();
    this.#remove(channel.jobId, subscriber);
    return false;
  }
}
