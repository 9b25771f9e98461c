import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { RE2JS } from 're2js';
import { readTextFileNow } from './text.ts';
import type { FileEntry, SearchMatch } from '../lib/readable-files.ts';
import { WorkspacePathError } from './types.ts';

/** How long one search may run before it is stopped. */
export const searchTimeoutMs = 5000;

/** Search stops after this many matches; the caller tells the model to narrow the pattern. */
export const maxSearchMatches = 500;
/** Files larger than this are skipped: generated files, not pages. */
export const maxSearchFileBytes = 1024 * 1024;
/** Longer patterns are refused: matching time grows with the pattern's length as well as the text's. */
const maxSearchPatternCharacters = 1000;
/** Only the start of very long lines is searched and returned. */
const maxLineCharacters = 2000;
const maxMatchTextCharacters = 300;

/** What the search worker answers: the matches, or why the pattern was refused. */
export type SearchAnswer = { matches: SearchMatch[] } | { refused: string };

/**
 * Searches text files line by line. The pattern is a regular expression in JavaScript syntax run
 * on RE2, which matches in time linear in the line's length: no pattern can backtrack for hours.
 * RE2 has no backreferences or lookaround; a pattern using them is refused with a sentence that
 * says so, as is one that does not parse.
 *
 * Each file is first tested whole, with `^` and `$` matching at line ends: a file with no match
 * there has none on any of its lines, and most files of a search have none, so only the few that
 * do are split into lines. Testing line by line cost a call per line: 637 ms for a search of a
 * 2,000-page repository. Files are read synchronously: this runs on a search worker (see
 * searchFilesWithTimeout), where waiting for each read in turn only added the event loop's turns.
 */
export function searchFiles(root: string, files: FileEntry[], pattern: string): SearchMatch[] {
  const expression = compile(pattern);
  const anyLine = wholeFileTest(pattern);
  const matches: SearchMatch[] = [];
  for (const file of files) {
    if (file.size > maxSearchFileBytes) continue;
    const content = readTextFileNow(join(root, file.path));
    if (content === null || (anyLine && !anyLine.test(content))) continue;
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
 * The pattern as a test of a whole file: it matches a file whenever it matches one of its lines,
 * and may match a file where it matches none (across a line end, or past a line's searched start),
 * which the line-by-line test then settles. Null for a pattern naming the text's own start or end
 * (`\A`, `\z`), which mean a line's start or end to the line-by-line test and no longer would.
 */
function wholeFileTest(pattern: string): RE2JS | null {
  const translated = RE2JS.translateRegExp(pattern);
  if (/\\[Az]/.test(translated)) return null;
  return RE2JS.compile(translated, RE2JS.MULTILINE);
}

/** Idle search workers kept for the next searches; more run at once when searches overlap, and are ended after. */
const maxIdleWorkers = 2;
const idleWorkers: Worker[] = [];

/** A search worker: an idle one when there is one (starting a worker costs tens of milliseconds), else a new one. */
function takeWorker(): Worker {
  const idle = idleWorkers.pop();
  if (idle && idle.threadId !== -1) {
    idle.ref();
    return idle;
  }
  const worker = new Worker(new URL('./search-worker.ts', import.meta.url));
  // An idle worker has nobody to tell of an error (it should never have one): without a listener, it would end this process.
  worker.on('error', () => undefined);
  return worker;
}

/** A worker that answered goes back to the idle ones (unreferenced, so it never keeps the process alive), or ends. */
function releaseWorker(worker: Worker): void {
  if (idleWorkers.length >= maxIdleWorkers) {
    void worker.terminate();
    return;
  }
  worker.unref();
  idleWorkers.push(worker);
}

/**
 * searchFiles in a worker thread, stopped after `timeoutMs`. RE2 already bounds the work per line;
 * the worker and the time limit stay as a second line of defence (a huge repository, a very
 * expensive pattern), so a search can never stall this process, its heartbeats or other jobs.
 * Workers are reused from one search to the next; one that runs out of time or fails is ended, never reused.
 */
export function searchFilesWithTimeout(root: string, files: FileEntry[], pattern: string, timeoutMs = searchTimeoutMs): Promise<SearchMatch[]> {
  if (pattern.length > maxSearchPatternCharacters) {
    return Promise.reject(
      new WorkspacePathError(
        `The search pattern has ${pattern.length} characters, more than the ${maxSearchPatternCharacters} Quire accepts; search for a shorter, more specific pattern.`,
      ),
    );
  }
  return new Promise((resolve, reject) => {
    const worker = takeWorker();
    // Only this search's own listeners are removed: the Worker keeps internal ones of its own.
    const done = () => {
      clearTimeout(timer);
      worker.off('message', onMessage).off('error', onError).off('exit', onExit);
    };
    const onMessage = (answer: SearchAnswer) => {
      done();
      releaseWorker(worker);
      if ('refused' in answer) reject(new WorkspacePathError(answer.refused));
      else resolve(answer.matches);
    };
    const onError = (error: Error) => {
      done();
      void worker.terminate();
      reject(error);
    };
    // A worker that exits mid-search (it should not): the search did not finish.
    const onExit = (code: number) => {
      done();
      reject(new Error(`The search stopped before it finished (exit code ${code}).`));
    };
    const timer = setTimeout(() => {
      done();
      void worker.terminate();
      reject(
        new WorkspacePathError(
          `The search for ${JSON.stringify(pattern.slice(0, 100))} took longer than ${timeoutMs / 1000} s and was stopped; search a smaller folder with the path argument, or use a simpler pattern.`,
        ),
      );
    }, timeoutMs);
    worker.on('message', onMessage).on('error', onError).on('exit', onExit);
    worker.postMessage({ root, files, pattern });
  });
}

function compile(pattern: string): RE2JS {
  try {
    return RE2JS.compile(RE2JS.translateRegExp(pattern));
  } catch (error) {
    const reason = (error as Error).message.replace(/^error parsing regexp: /, '');
    throw new WorkspacePathError(
      `"${pattern.slice(0, 100)}" is not a valid regular expression (${reason}). Search patterns are JavaScript regular expressions run on RE2, ` +
        'so there are no backreferences (\\1) and no lookaround ((?=…), (?!…), (?<=…), (?<!…)): search for the plain text instead. ' +
        'Escape special characters such as ( [ . * with a backslash to search for them literally.',
    );
  }
}
