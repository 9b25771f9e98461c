import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

type Collect = (options: { type: 'major'; execution: 'sync'; flavor: 'last-resort' }) => void;

let collect: Collect | undefined;

/**
 * Gives back to the system the memory this thread's JavaScript heap has freed. V8 keeps the pages its
 * collections free in a pool of the thread's isolate, still resident, until a collection made to reduce
 * memory; it starts one itself only once it measures a low allocation rate, which it measures at collections,
 * so a thread that finished a burst of work keeps the burst's pages for good. (A script that builds and drops
 * 600 MiB of objects stays at 690 MiB resident after its collections, and after 25 s idle; this brings it to 70 MiB.)
 *
 * The collection is V8's own, through its `gc` function: the global one in a process started with `--expose-gc`,
 * otherwise that of a context made for it (V8 adds `gc` to contexts made while the flag is set; it is set back at
 * once, so no other code sees the function). It is a full
 * collection that compacts, and holds the thread while it runs: tens of milliseconds for a heap of a hundred MiB
 * live, and V8 repeats it until nothing more is freed: about 120–130 ms on the serving thread after a load of
 * 10,000,000 views, 40 ms on a small heap. Callers run it where a burst of work has just ended, not per request.
 */
function releaseFreedMemory(): void {
  collect ??= (globalThis as { gc?: Collect }).gc ?? exposedCollect();
  collect({ type: 'major', execution: 'sync', flavor: 'last-resort' });
}

/** V8's `gc`, from a context made while `--expose-gc` is set (a process started with the flag has it on its global already). */
function exposedCollect(): Collect {
  setFlagsFromString('--expose-gc');
  try {
    return runInNewContext('gc') as Collect;
  } finally {
    setFlagsFromString('--no-expose-gc');
  }
}

/** The process's resident memory when this thread last gave back its freed memory (or loaded this module). */
let residentAfterRelease = process.memoryUsage.rss();

/**
 * `releaseFreedMemory`, when the process's resident memory has grown by `growth` bytes or more since this thread
 * last released (or started): a thread whose bursts are small does not pay for the collection each time.
 */
export function releaseFreedMemoryIfGrown(growth = 64 * 1024 * 1024): void {
  if (process.memoryUsage.rss() < residentAfterRelease + growth) return;
  releaseFreedMemory();
  residentAfterRelease = process.memoryUsage.rss();
}

/**
 * For a long-lived thread that works in bursts (a parse thread, SQLite's writing and reading threads, the proxy's
 * recorder): run each piece of work through the function this returns (it returns what the work returns, a promise
 * included), and once `quietMs` pass after the last piece ended with none under way, the thread's freed memory is
 * given back (`releaseFreedMemory`). A busy thread only pushes the moment back; an idle one pays nothing.
 */
export function releaseWhenIdle(quietMs = 5_000): <T>(work: () => T) => T {
  let running = 0;
  let timer: NodeJS.Timeout | undefined;
  const ended = () => {
    running--;
    if (timer !== undefined) {
      timer.refresh();
      return;
    }
    timer = setTimeout(() => {
      timer = undefined;
      // Work under way now arms the timer again when it ends.
      if (running === 0) releaseFreedMemory();
    }, quietMs);
    timer.unref();
  };
  return <T>(work: () => T): T => {
    running++;
    let result: T;
    try {
      result = work();
    } catch (error) {
      ended();
      throw error;
    }
    if (result instanceof Promise) return result.finally(ended) as T;
    ended();
    return result;
  };
}
