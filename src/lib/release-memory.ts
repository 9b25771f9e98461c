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
 * The collection is V8's own, through the `gc` function of a context made for it (V8 adds `gc` to contexts made
 * while `--expose-gc` is set; the flag is set back at once, so no other code sees the function). It is a full
 * collection that compacts, and holds the thread while it runs: tens of milliseconds for a heap of a hundred MiB
 * live, so callers run it where a burst of work has just ended, not per request.
 */
export function releaseFreedMemory(): void {
  if (collect === undefined) {
    setFlagsFromString('--expose-gc');
    try {
      collect = runInNewContext('gc') as Collect;
    } finally {
      setFlagsFromString('--no-expose-gc');
    }
  }
  collect({ type: 'major', execution: 'sync', flavor: 'last-resort' });
}

/**
 * For a long-lived thread that works in bursts (a parse thread, SQLite's writing and reading threads): call the
 * function this returns after each piece of work, and once `quietMs` pass with none, the thread's freed memory
 * is given back (`releaseFreedMemory`). A busy thread only pushes the moment back; an idle one pays nothing.
 */
export function releaseWhenIdle(quietMs = 5_000): () => void {
  let timer: NodeJS.Timeout | undefined;
  return () => {
    if (timer !== undefined) {
      timer.refresh();
      return;
    }
    timer = setTimeout(() => {
      timer = undefined;
      releaseFreedMemory();
    }, quietMs);
    timer.unref();
  };
}
