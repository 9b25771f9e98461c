/** Runs one search off the main thread, so a pattern that backtracks forever can be stopped (see search.ts). */
import { parentPort, workerData } from 'node:worker_threads';
import { searchFiles } from './search.ts';
import type { FileEntry } from './types.ts';

const { root, files, pattern } = workerData as { root: string; files: FileEntry[]; pattern: string };
parentPort!.postMessage(await searchFiles(root, files, pattern));
