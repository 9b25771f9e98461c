import { Worker } from 'node:worker_threads';
import type { AnalysisDepth, PageAnalysis } from './page.ts';

/** Analyzes pages; null when a page was not analyzed (the reason is in `skipped`). */
export interface PageAnalyzer {
  analyze(path: string, text: string): Promise<PageAnalysis | null>;
  /** Starts a worker now, so the first page does not wait for it to load the parsers. */
  warm(): void;
  skipped: string[];
  close(): Promise<void>;
}

/** Deeper nesting of block quotes and lists than this is not documentation, and the Markdown parser slows down on it. */
const maxNesting = 64;

/** One worker of the pool and the page it is parsing, if any. */
interface Slot {
  worker: Worker | null;
  resolve: ((analysis: PageAnalysis | null) => void) | null;
}

/**
 * Parses pages in worker threads (`workers` of them, one page each at a time; pages beyond wait
 * their turn), each within `pageTimeoutMs` and before `deadline`: the Markdown and MDX parsers are
 * fast on documentation but slow down on some constructed input (thousands of nested lists), so a
 * page that takes too long is stopped, its worker replaced, and the page listed as not checked.
 * Results are cached by text, as several checks read the same page.
 */
export function createPageAnalyzer(options: {
  pageTimeoutMs: number;
  deadline: number;
  signal?: AbortSignal;
  depth?: AnalysisDepth;
  workers?: number;
}): PageAnalyzer {
  const slots: Slot[] = Array.from({ length: Math.max(1, options.workers ?? 1) }, () => ({ worker: null, resolve: null }));
  const queue: (() => void)[] = [];
  const cache = new Map<string, Promise<PageAnalysis | null>>();
  const skipped: string[] = [];

  const start = (slot: Slot) => {
    const started = new Worker(new URL('./page-worker.ts', import.meta.url));
    started.on('message', (answer: { analysis: PageAnalysis }) => slot.worker === started && finish(slot, answer.analysis));
    started.on('error', () => stop(slot, started));
    started.on('exit', () => stop(slot, started));
    started.unref();
    return started;
  };
  const finish = (slot: Slot, analysis: PageAnalysis | null) => {
    const resolve = slot.resolve;
    slot.resolve = null;
    resolve?.(analysis);
    queue.shift()?.();
  };
  const stop = (slot: Slot, stopped: Worker) => {
    if (slot.worker !== stopped) return;
    slot.worker = null;
    void stopped.terminate();
    finish(slot, null);
  };

  const run = (slot: Slot, path: string, text: string, resolve: (analysis: PageAnalysis | null) => void) => {
    const timeoutMs = Math.min(options.pageTimeoutMs, options.deadline - Date.now());
    if (options.signal?.aborted) return finishUnsent(slot, resolve, null);
    if (timeoutMs <= 0) {
      skipped.push(`${path}: the checks ran out of time`);
      return finishUnsent(slot, resolve, null);
    }
    const current = (slot.worker ??= start(slot));
    const timer = setTimeout(() => {
      skipped.push(`${path}: took longer than ${Math.ceil(timeoutMs / 1000)} s to parse`);
      stop(slot, current);
    }, timeoutMs);
    slot.resolve = (analysis) => {
      clearTimeout(timer);
      resolve(analysis);
    };
    current.postMessage({ path, text, depth: options.depth ?? 'compile' });
  };
  const finishUnsent = (slot: Slot, resolve: (analysis: PageAnalysis | null) => void, analysis: null) => {
    slot.resolve = resolve;
    finish(slot, analysis);
  };

  const parse = (path: string, text: string): Promise<PageAnalysis | null> => {
    if (nestingDepth(text) > maxNesting) {
      skipped.push(`${path}: block quotes or lists nested more than ${maxNesting} deep`);
      return Promise.resolve(null);
    }
    return new Promise((resolve) => {
      const send = () =>
        run(
          slots.find((slot) => slot.resolve === null)!,
          path,
          text,
          resolve,
        );
      if (slots.some((slot) => slot.resolve === null)) send();
      else queue.push(send);
    });
  };

  // A stopped job must not wait for a page: the workers go, and pages waiting for them count as unparsed.
  options.signal?.addEventListener('abort', () => slots.forEach((slot) => slot.worker && stop(slot, slot.worker)), { once: true });

  return {
    skipped,
    analyze(path, text) {
      const key = `${path}\0${text}`;
      let analysis = cache.get(key);
      if (!analysis) cache.set(key, (analysis = parse(path, text)));
      return analysis;
    },
    warm() {
      if (!options.signal?.aborted) slots[0]!.worker ??= start(slots[0]!);
    },
    async close() {
      await Promise.all(slots.map((slot) => slot.worker?.terminate()));
      for (const slot of slots) slot.worker = null;
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
