/** Runs searches off the main thread, one message at a time, so even an expensive one can be stopped (see search.ts). */
import { parentPort } from 'node:worker_threads';
import { searchFiles, type SearchAnswer } from './search.ts';
import type { FileEntry } from '../lib/readable-files.ts';
import { WorkspacePathError } from './types.ts';

parentPort!.on('message', ({ root, files, pattern }: { root: string; files: FileEntry[]; pattern: string }) => {
  let answer: SearchAnswer;
  try {
    answer = { matches: searchFiles(root, files, pattern) };
  } catch (error) {
    // A refused pattern is an answer for the model; anything else reaches the caller as the worker's error.
    if (!(error instanceof WorkspacePathError)) throw error;
    answer = { refused: error.message };
  }
  parentPort!.postMessage(answer);
});
