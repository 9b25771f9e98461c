import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { readTextFile } from './text.ts';
import { WorkspacePathError, type FileEntry, type SearchMatch } from './types.ts';

/** How long one search may run before it is stopped. */
export const searchTimeoutMs = 5000;

/** Search stops after this many matches; the caller tells the model to narrow the pattern. */
export const maxSearchMatches = 500;
/** Files larger than this are skipped: generated files, not pages. */
export const maxSearchFileBytes = 1024 * 1024;
/** Only the start of very long lines is searched and returned, which also bounds regex run time. */
const maxLineCharacters = 2000;
const maxMatchTextCharacters = 300;

/**
 * Searches text files line by line. The pattern is a JavaScript regular expression; one that does
 * not compile is searched for literally, so `foo(` still finds something.
 */
export async function searchFiles(root: string, files: FileEntry[], pattern: string): Promise<SearchMatch[]> {
  const expression = compile(pattern);
  const matches: SearchMatch[] = [];
  for (const file of files) {
    if (file.size > maxSearchFileBytes) continue;
    const content = await readTextFile(join(root, file.path)).catch(() => null);
    if (content === null) continue;
    const lines = content.split('\n');
    for (let index = 0; index < lines.length; index++) {
      const line = lines[index].slice(0, maxLineCharacters);
      if (!expression.test(line)) continue;
      matches.push({ path: file.path, line: index + 1, text: line.slice(0, maxMatchTextCharacters) });
      if (matches.length >= maxSearchMatches) return matches;
    }
  }
  return matches;
}

/**
 * searchFiles in a worker thread, stopped after `timeoutMs`. The pattern comes from the model (or
 * from whatever the repository's content talked it into): a regular expression that backtracks
 * catastrophically would otherwise block this process, its heartbeats and every other job in it.
 */
export function searchFilesWithTimeout(root: string, files: FileEntry[], pattern: string, timeoutMs = searchTimeoutMs): Promise<SearchMatch[]> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL('./search-worker.ts', import.meta.url), { workerData: { root, files, pattern } });
    const timer = setTimeout(() => {
      void worker.terminate();
      reject(new WorkspacePathError(`The search for ${JSON.stringify(pattern.slice(0, 100))} took longer than ${timeoutMs / 1000} s and was stopped; use a simpler pattern (a literal word, or no nested repetition such as "(a+)+").`));
    }, timeoutMs);
    worker.once('message', (matches: SearchMatch[]) => {
      clearTimeout(timer);
      void worker.terminate();
      resolve(matches);
    });
    worker.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    worker.once('exit', (code) => {
      clearTimeout(timer);
      // After a message or an error this changes nothing; otherwise it says the search did not finish.
      reject(new Error(`The search stopped before it finished (exit code ${code}).`));
    });
  });
}

function compile(pattern: string): RegExp {
  try {
    return new RegExp(pattern);
  } catch {
    return new RegExp(pattern.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  }
}
