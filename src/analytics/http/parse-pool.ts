import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { parseEventsBody, type ParsedEventsBody } from './events-body.ts';
import type { ParseRequest } from './parse-thread.ts';

/** Bodies shorter than this are parsed where they arrive: a thread's round trip costs more than they do. */
const inlineBelow = 64 * 1024;

interface ParseThread {
  worker: Worker;
  pending: Map<number, { request: ParseRequest; resolve: (parsed: ParsedEventsBody) => void }>;
}

/**
 * Parses large events API bodies in threads of their own. Parsing and checking a batch of events (JSON
 * text to objects to prepared events) is a third of what ingestion costs the API's event loop, which
 * also drives every database round trip; in a thread, it runs beside the loop on another core, and the
 * prepared events come back as columns (see events-body.ts). A thread that fails is replaced, and its
 * bodies are parsed on the event loop instead, with the same code.
 */
export class ParsePool {
  readonly #size: number;
  readonly #threads: ParseThread[] = [];
  #next = 0;
  #closed = false;

  constructor(size = Math.max(1, Math.min(4, availableParallelism() - 1))) {
    this.#size = size;
  }

  async parse(text: string, ndjson: boolean, now = Date.now()): Promise<ParsedEventsBody> {
    if (text.length < inlineBelow || this.#closed) return parseEventsBody(text, ndjson, now);
    const thread = this.#thread();
    const id = this.#next++;
    const request: ParseRequest = { id, text, ndjson, now };
    return new Promise((resolve) => {
      thread.pending.set(id, { request, resolve });
      thread.worker.postMessage(request);
    });
  }

  /** The least busy thread, started on first use. */
  #thread(): ParseThread {
    if (this.#threads.length < this.#size && this.#threads.every((thread) => thread.pending.size > 0)) this.#threads.push(this.#start());
    return this.#threads.reduce((best, thread) => (thread.pending.size < best.pending.size ? thread : best));
  }

  #start(): ParseThread {
    const worker = new Worker(new URL('./parse-thread.ts', import.meta.url));
    const thread: ParseThread = { worker, pending: new Map() };
    // Idle threads do not keep the process alive.
    worker.unref();
    worker.on('message', ({ id, parsed }: { id: number; parsed: ParsedEventsBody }) => {
      thread.pending.get(id)?.resolve(parsed);
      thread.pending.delete(id);
    });
    const fail = () => {
      const index = this.#threads.indexOf(thread);
      if (index !== -1) this.#threads.splice(index, 1);
      // What it had not answered is parsed here; nothing a client sent is lost to a thread.
      for (const { request, resolve } of thread.pending.values()) resolve(parseEventsBody(request.text, request.ndjson, request.now));
      thread.pending.clear();
    };
    worker.on('error', fail);
    worker.on('exit', fail);
    return thread;
  }

  async close(): Promise<void> {
    this.#closed = true;
    await Promise.all(this.#threads.splice(0).map((thread) => thread.worker.terminate()));
  }
}
