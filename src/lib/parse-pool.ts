import { availableParallelism } from 'node:os';
import { parentPort, type Worker } from 'node:worker_threads';
import { releaseWhenIdle } from './release-memory.ts';
import { longLivedThreadLimits } from './thread-memory.ts';
import { startThread } from './threads.ts';

/** Bodies shorter than this are parsed where they arrive: a thread's round trip costs more than they do. */
export const inlineBelow = 64 * 1024;

/**
 * A parse a pool runs: the function, and how its result crosses threads: `pack` runs in the thread and
 * names the buffers to move rather than copy, `unpack` on arrival. A result parsed where it arrived is
 * neither packed nor unpacked.
 */
export interface ParseWork<Input, Result, Message = Result> {
  task: (input: Input) => Result;
  pack: (result: Result) => { message: Message; transfer: ArrayBuffer[] };
  unpack: (message: Message) => Result;
}

interface ParseRequest<Input> {
  id: number;
  input: Input;
}

/** A thread's answer: the packed result, or the message of what the task threw (a fault, answered as one). */
interface ParseAnswer<Message> {
  id: number;
  message?: Message;
  error?: string;
}

interface ParseThread<Input, Result> {
  worker: Worker;
  pending: Map<number, { input: Input; resolve: (result: Result) => void; reject: (error: Error) => void }>;
}

/**
 * Runs a parse of large bodies (events API bodies, drain batches) in threads of its own. Parsing and
 * checking a batch of events (JSON text to objects to prepared events) is a third of what ingestion
 * costs the API's event loop, which also drives every database round trip; in a thread, it runs beside
 * the loop on another core, and the prepared events come back as columns (the work's `pack`, see
 * analytics/model/packed-batch.ts). A thread that fails is replaced, and its bodies are parsed on
 * the event loop instead, with the same function.
 *
 * `script` is the thread's module: it calls `serveParses` with the same `work`.
 */
export class ParsePool<Input, Result, Message = Result> {
  readonly #script: URL;
  readonly #work: ParseWork<Input, Result, Message>;
  readonly #size: number;
  readonly #threads: ParseThread<Input, Result>[] = [];
  #next = 0;
  #closed = false;

  /** `size`: threads at most (default one fewer than the cores, at least 1 and at most 4); 0 parses everything inline. */
  constructor(script: URL, work: ParseWork<Input, Result, Message>, size = Math.max(1, Math.min(4, availableParallelism() - 1))) {
    this.#script = script;
    this.#work = work;
    this.#size = size;
  }

  /** Parses `input`; in a thread when its body has `bytes` bytes or more. */
  async run(input: Input, bytes: number): Promise<Result> {
    if (bytes < inlineBelow || this.#closed || this.#size === 0) return this.#work.task(input);
    const thread = this.#thread();
    const id = this.#next++;
    return new Promise((resolve, reject) => {
      thread.pending.set(id, { input, resolve, reject });
      thread.worker.postMessage({ id, input } satisfies ParseRequest<Input>);
    });
  }

  /** The least busy thread, started on first use. */
  #thread(): ParseThread<Input, Result> {
    if (this.#threads.length < this.#size && this.#threads.every((thread) => thread.pending.size > 0)) this.#threads.push(this.#start());
    return this.#threads.reduce((best, thread) => (thread.pending.size < best.pending.size ? thread : best));
  }

  #start(): ParseThread<Input, Result> {
    const worker = startThread(this.#script, { resourceLimits: longLivedThreadLimits });
    const thread: ParseThread<Input, Result> = { worker, pending: new Map() };
    // Idle threads do not keep the process alive.
    worker.unref();
    worker.on('message', ({ id, message, error }: ParseAnswer<Message>) => {
      const pending = thread.pending.get(id);
      thread.pending.delete(id);
      if (error === undefined) pending?.resolve(this.#work.unpack(message!));
      else pending?.reject(new Error(error));
    });
    const fail = () => {
      const index = this.#threads.indexOf(thread);
      if (index !== -1) this.#threads.splice(index, 1);
      // What it had not answered is parsed here; nothing a client sent is lost to a thread.
      for (const { input, resolve, reject } of thread.pending.values()) {
        try {
          resolve(this.#work.task(input));
        } catch (error) {
          reject(error as Error);
        }
      }
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

/** The body of a parse thread's module: answers each request with the work's result, packed. */
export function serveParses<Input, Result, Message>(work: ParseWork<Input, Result, Message>): void {
  // A parse thread works in bursts (a load, a drain's batches): once it has been idle a few seconds, the memory its heap
  // freed goes back to the system (release-memory.ts).
  const during = releaseWhenIdle();
  const answer = ({ id, input }: ParseRequest<Input>) => {
    let result: Result;
    try {
      result = work.task(input);
    } catch (error) {
      return parentPort!.postMessage({ id, error: (error as Error).message } satisfies ParseAnswer<Message>);
    }
    const { message, transfer } = work.pack(result);
    parentPort!.postMessage({ id, message } satisfies ParseAnswer<Message>, transfer);
  };
  parentPort!.on('message', (request: ParseRequest<Input>) => during(() => answer(request)));
}

/** Work whose result crosses threads as it is (cloned). */
export const asIs = <Input, Result>(task: (input: Input) => Result): ParseWork<Input, Result> => ({
  task,
  pack: (result) => ({ message: result, transfer: [] }),
  unpack: (message) => message,
});
