import { Worker } from 'node:worker_threads';
import type { PageAnalysis } from './page.ts';

/** Analyzes pages; null when a page was not analyzed (the reason is in `skipped`). */
export interface PageAnalyzer {
  analyze(path: string, text: string): Promise<PageAnalysis | null>;
  skipped: string[];
  close(): Promise<void>;
}

/** Deeper nesting of block quotes and lists than this is not documentation, and the Markdown parser slows down on it. */
const maxNesting = 64;

/**
 * Parses pages in a worker thread, each within `pageTimeoutMs` and before `deadline`: the Markdown
 * and MDX parsers are fast on documentation but slow down on some constructed input (thousands of
 * nested lists), so a page that takes too long is stopped and listed as not checked. Results are
 * cached by text, as several checks read the same page.
 */
export function createPageAnalyzer(options: { pageTimeoutMs: number; deadline: number; signal?: AbortSignal }): PageAnalyzer {
  let worker: Worker | null = null;
  let nextId = 0;
  const waiting = new Map<number, (analysis: PageAnalysis | null) => void>();
  const cache = new Map<string, Promise<PageAnalysis | null>>();
  const skipped: string[] = [];

  const start = () => {
    const started = new Worker(new URL('./page-worker.ts', import.meta.url));
    started.on('message', (answer: { id: number; analysis: PageAnalysis }) => {
      waiting.get(answer.id)?.(answer.analysis);
      waiting.delete(answer.id);
    });
    started.on('error', () => stop(started));
    started.on('exit', () => stop(started));
    started.unref();
    return started;
  };
  const stop = (stopped: Worker) => {
    if (worker === stopped) worker = null;
    void stopped.terminate();
    for (const resolve of waiting.values()) resolve(null);
    waiting.clear();
  };

  const parse = (path: string, text: string): Promise<PageAnalysis | null> => {
    if (nestingDepth(text) > maxNesting) {
      skipped.push(`${path}: block quotes or lists nested more than ${maxNesting} deep`);
      return Promise.resolve(null);
    }
    const timeoutMs = Math.min(options.pageTimeoutMs, options.deadline - Date.now());
    if (options.signal?.aborted) return Promise.resolve(null);
    if (timeoutMs <= 0) {
      skipped.push(`${path}: the checks ran out of time`);
      return Promise.resolve(null);
    }
    const current = (worker ??= start());
    const id = nextId++;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        skipped.push(`${path}: took longer than ${Math.ceil(timeoutMs / 1000)} s to parse`);
        stop(current);
      }, timeoutMs);
      waiting.set(id, (analysis) => {
        clearTimeout(timer);
        resolve(analysis);
      });
      current.postMessage({ id, path, text });
    });
  };

  // A stopped job must not wait for a page: the worker goes, and pages waiting for it count as unparsed.
  options.signal?.addEventListener('abort', () => worker && stop(worker), { once: true });

  return {
    skipped,
    analyze(path, text) {
      const key = `${path}\0${text}`;
      let analysis = cache.get(key);
      if (!analysis) cache.set(key, (analysis = parse(path, text)));
      return analysis;
    },
    async close() {
      if (worker) await worker.terminate();
      worker = null;
    },
  };
}

/** The most block quote and list markers opening one line (`> - > 1. text` is 4), in one pass. */
export function nestingDepth(text: string): number {
  let deepest = 0;
  let depth = 0;
  let atLineStart = true;
  for (let index = 0; index < text.length; index++) {
    const char = text[index];
    if (char === '\n') {
      depth = 0;
      atLineStart = true;
      continue;
    }
    if (!atLineStart || char === ' ' || char === '\t') continue;
    const next = text[index + 1];
    if (char === '>' || ((char === '-' || char === '*' || char === '+') && (next === ' ' || next === '\t'))) {
      depth++;
      if (depth > deepest) deepest = depth;
    } else if (char >= '0' && char <= '9') {
      let end = index;
      while (end < text.length && text[end] >= '0' && text[end] <= '9') end++;
      if ((text[end] === '.' || text[end] === ')') && (text[end + 1] === ' ' || text[end + 1] === '\t')) {
        depth++;
        if (depth > deepest) deepest = depth;
        index = end;
      } else atLineStart = false;
    } else atLineStart = false;
  }
  return deepest;
}
