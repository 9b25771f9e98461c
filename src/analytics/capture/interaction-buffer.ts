/**
 * Searches and feedback recorded by the features Quire answers itself arrive one per request; a
 * transaction each made every search wait its turn for the database's write lock. They are held
 * here instead and written in batches, one transaction per project, on a short timer: a caller
 * never waits for the database, and a promise tells it, when it cares, how many were stored. The
 * buffer is bounded (beyond it new events are dropped and logged) and is emptied at shutdown.
 */
import { storeInteractions } from '../feedback/interactions.ts';
import type { PreparedInteraction } from '../feedback/validate.ts';
import type { IngestProject, IngestState } from '../ingest/ingest.ts';

interface ProjectBatch {
  project: IngestProject;
  events: PreparedInteraction[];
  /** Each caller's event count and the resolver of its promise. */
  waiters: { count: number; resolve: (stored: number) => void }[];
}

export interface InteractionBufferOptions {
  /** Events held at most; beyond, new ones are dropped and logged (default 10,000). */
  maxBuffered?: number;
  /** How long an event may wait for its batch, in milliseconds (default 50). */
  flushMilliseconds?: number;
}

export class InteractionBuffer {
  readonly #state: IngestState;
  readonly #maxBuffered: number;
  readonly #flushMilliseconds: number;
  #pending = new Map<string, ProjectBatch>();
  #buffered = 0;
  #timer: NodeJS.Timeout | undefined;
  #writing: Promise<void> | undefined;

  constructor(state: IngestState, options: InteractionBufferOptions = {}) {
    this.#state = state;
    this.#maxBuffered = options.maxBuffered ?? 10_000;
    this.#flushMilliseconds = options.flushMilliseconds ?? 50;
  }

  /**
   * Queues checked events of one project; resolves with the number stored once their batch committed
   * (0 when it failed). `soon` starts the batch without waiting for the timer, for a caller that
   * awaits the commit (feedback, which the answer says is recorded).
   */
  add(project: IngestProject, events: PreparedInteraction[], soon = false): Promise<number> {
    if (events.length === 0) return Promise.resolve(0);
    if (this.#buffered + events.length > this.#maxBuffered) {
      this.#state.logger.warn({ project: project.id, events: events.length, buffered: this.#buffered }, 'search and feedback buffer full: dropping events');
      return Promise.resolve(0);
    }
    const batch = this.#pending.get(project.id) ?? { project, events: [], waiters: [] };
    this.#pending.set(project.id, batch);
    batch.events.push(...events);
    this.#buffered += events.length;
    const stored = new Promise<number>((resolve) => batch.waiters.push({ count: events.length, resolve }));
    this.#schedule(soon ? 0 : this.#flushMilliseconds);
    return stored;
  }

  /** Writes everything held now, and what arrives while it writes; resolves when the buffer is empty. */
  async flush(): Promise<void> {
    while (this.#writing || this.#buffered > 0) await (this.#writing ?? this.#startWrite());
  }

  #schedule(delay: number): void {
    if (this.#writing || (this.#timer && delay > 0)) return;
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => void this.#startWrite(), delay);
    this.#timer.unref();
  }

  #startWrite(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const batches = [...this.#pending.values()];
    this.#pending = new Map();
    this.#buffered = 0;
    this.#writing = Promise.all(batches.map((batch) => this.#write(batch))).then(() => {
      this.#writing = undefined;
      if (this.#buffered > 0) this.#schedule(this.#flushMilliseconds);
    });
    return this.#writing;
  }

  async #write({ project, events, waiters }: ProjectBatch): Promise<void> {
    let stored = true;
    try {
      await storeInteractions(this.#state, project, events);
    } catch (error) {
      stored = false;
      this.#state.logger.warn({ err: error, project: project.id, events: events.length }, 'recording searches or feedback failed; they are lost');
    }
    for (const waiter of waiters) waiter.resolve(stored ? waiter.count : 0);
  }
}

const buffers = new WeakMap<IngestState, InteractionBuffer>();

/** The one buffer of a process's analytics state (state.ts makes one state per database). */
export function interactionBuffer(state: IngestState): InteractionBuffer {
  let buffer = buffers.get(state);
  if (!buffer) buffers.set(state, (buffer = new InteractionBuffer(state)));
  return buffer;
}

/** Stores what the state's buffer holds: call at shutdown, before the database closes. */
export async function flushInteractions(state: IngestState): Promise<void> {
  await buffers.get(state)?.flush();
}
