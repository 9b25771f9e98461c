/** A worker thread for test/lib/threads.test.ts: answers where `kysely` resolves in this thread, with the workerData and arguments it was given. */
import { parentPort, workerData } from 'node:worker_threads';

parentPort!.postMessage({ kysely: import.meta.resolve('kysely'), workerData, argv: process.argv.slice(2) });
