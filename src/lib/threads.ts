import { Worker, type WorkerOptions } from 'node:worker_threads';

/**
 * A worker thread running `script` that loads Kysely from its bundle, as the thread that starts it does
 * (lib/bundled-kysely.ts). Module hooks reach only the thread that registers them, so a thread started
 * with `new Worker(script)` resolved Kysely's 255 modules one by one: about 180 ms of every SQLite, parse,
 * import or proxy thread's start on a two-core machine, against about 15 ms for the bundle. The thread
 * starts in thread-entry.ts, which registers the hook and then imports `script`; `workerData` and the
 * other options reach the script as they are.
 */
export function startThread(script: URL, options: WorkerOptions = {}): Worker {
  return new Worker(new URL('./thread-entry.ts', import.meta.url), { ...options, argv: [...(options.argv ?? []), script.href] });
}
