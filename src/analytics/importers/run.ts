import { Readable } from 'node:stream';
import type { Worker } from 'node:worker_threads';
import { createGunzip } from 'node:zlib';
import { assetRuleOf, type AssetSettings } from '../capture/assets.ts';
import type { IngestProject, IngestState } from '../ingest/ingest.ts';
import type { FormatName } from './formats.ts';
import { emptySummary, type ImportSummary } from './line-parser.ts';
import { defaultBatchSize, storeParsed } from './log-batch.ts';
import type { ReadInput, ReadMessage, ReadThreadData } from './read-thread.ts';
import { unpackBatch, type PackedBatch, type ParsedBatch } from '../model/packed-batch.ts';
import { addCounts } from '../capture/request-event.ts';
import { startThread } from '../../lib/threads.ts';

export interface ImportOptions {
  /** Called with the compressed bytes read so far, at most a few times a second. */
  onProgress?: (bytesRead: number, summary: ImportSummary) => void;
  /** Events per transaction (default 10,000). */
  batchSize?: number;
}

/** Bytes handed to the reading thread and not yet read by it: enough for a few batches while one is stored. */
const maxUnreadBytes = 16 * 1024 * 1024;

/** The input's bytes, gunzipped when they start with the gzip magic bytes (so `.gz` files need no flag). */
async function* decompressed(input: Readable, counted: (bytes: number) => void): AsyncGenerator<Buffer> {
  // A stream of strings (an object-mode Readable) is read as UTF-8 bytes.
  const bytes = (async function* () {
    for await (const chunk of input as AsyncIterable<Buffer | string>) yield typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
  })();
  const iterator = bytes[Symbol.asyncIterator]();
  const first = await iterator.next();
  if (first.done) return;
  const raw = Readable.from(
    (async function* () {
      counted(first.value.length);
      yield first.value;
      for (let next = await iterator.next(); !next.done; next = await iterator.next()) {
        counted(next.value.length);
        yield next.value;
      }
    })(),
  );
  if (first.value[0] === 0x1f && first.value[1] === 0x8b) yield* raw.pipe(createGunzip());
  else yield* raw;
}

/** The reading thread (read-thread.ts) seen from the storing side: bytes go in, parsed batches come out in order. */
class ReadingThread {
  readonly #worker: Worker;
  readonly #batches: PackedBatch[] = [];
  #unread = 0;
  #summary: ImportSummary | undefined;
  #bytesRead = 0;
  #ended = false;
  #failure: Error | undefined;
  #wake: (() => void) | undefined;

  constructor(data: ReadThreadData) {
    this.#worker = startThread(new URL('./read-thread.ts', import.meta.url), { workerData: data });
    this.#worker.on('message', (message: ReadMessage) => {
      if (message.kind === 'read') this.#unread -= message.bytes;
      else if (message.kind === 'batch') this.#batches.push(message.batch);
      else this.#ended = true;
      if (message.kind !== 'read') {
        this.#summary = message.summary;
        this.#bytesRead = message.bytesRead;
      }
      this.#notify();
    });
    this.#worker.on('error', (error) => this.#fail(error));
    this.#worker.on('exit', () => this.#fail(new Error('the import stopped reading the log before its end')));
  }

  /** What the thread has counted: lines, skipped lines by reason, notes. */
  get summary(): ImportSummary | undefined {
    return this.#summary;
  }

  get unread(): number {
    return this.#unread;
  }

  /** The bytes of a file the thread reads itself (compressed bytes for a gzip file) read so far. */
  get bytesRead(): number {
    return this.#bytesRead;
  }

  get ended(): boolean {
    return this.#ended && this.#batches.length === 0;
  }

  write(chunk: Buffer): void {
    this.#unread += chunk.byteLength;
    // A copy of its own to hand over: a chunk may be a view of a larger shared buffer, which a message would copy whole.
    const own = new Uint8Array(chunk);
    this.#post(own, [own.buffer]);
  }

  end(): void {
    this.#post(null);
  }

  #post(input: ReadInput, transfer: ArrayBuffer[] = []): void {
    this.#worker.postMessage(input, transfer);
  }

  /** The next parsed batch, if one is waiting. */
  take(): ParsedBatch | undefined {
    if (this.#failure) throw this.#failure;
    const packed = this.#batches.shift();
    if (packed === undefined) return undefined;
    // The thread reads a file on only while few batches wait here.
    this.#post({ kind: 'taken' });
    return unpackBatch(packed);
  }

  /** Resolves at the thread's next message, or at once when a batch or the end is waiting. */
  changed(): Promise<void> {
    if (this.#failure) return Promise.reject(this.#failure);
    if (this.#batches.length > 0 || this.#ended) return Promise.resolve();
    return new Promise((resolve) => (this.#wake = resolve));
  }

  close(): Promise<number> {
    this.#failure ??= new Error('closed');
    return this.#worker.terminate();
  }

  #fail(error: Error): void {
    if (this.#ended) return;
    this.#failure ??= error;
    this.#notify();
  }

  #notify(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }
}

/**
 * Reads a log (a stream, or a file's path), stores its page views in batches, and reports what was
 * read, accepted and skipped. The log is read and parsed in a thread of its own (read-thread.ts)
 * while this one stores; a file is opened there, so its bytes never pass through this thread.
 * Importing the same file again (or a file a tail already read) stores nothing twice: see line-keys.ts.
 */
export async function importLog(
  analytics: IngestState,
  project: IngestProject & AssetSettings,
  format: FormatName,
  input: Readable | string,
  options: ImportOptions = {},
): Promise<ImportSummary> {
  const reading = new ReadingThread({
    format,
    rule: assetRuleOf(project),
    secret: project.analytics_secret,
    batchSize: options.batchSize ?? defaultBatchSize,
    path: typeof input === 'string' ? input : undefined,
  });
  // Accepted and already-imported events are counted here; the reading thread counts the rest.
  const stored = emptySummary();
  const summary = () => merged(reading.summary, stored);
  let bytesRead = 0;
  let lastReport = 0;
  // Two batches in flight: the next one is written while the last one's commit flushes to disk (a stored
  // batch is answered only once on disk, see ingest/group-commit.ts). A failure is thrown at its turn.
  let storing: Promise<void> | null = null;
  const storeWaiting = async () => {
    for (let batch = reading.take(); batch; batch = reading.take()) {
      const next = storeParsed(analytics, project, batch.events, stored);
      next.catch(() => {});
      if (storing) await storing;
      storing = next;
      if (options.onProgress && Date.now() - lastReport > 200) {
        lastReport = Date.now();
        options.onProgress(Math.max(bytesRead, reading.bytesRead), summary());
      }
    }
  };
  try {
    if (typeof input !== 'string') {
      for await (const chunk of decompressed(input, (bytes) => (bytesRead += bytes))) {
        reading.write(chunk);
        await storeWaiting();
        while (reading.unread > maxUnreadBytes) {
          await reading.changed();
          await storeWaiting();
        }
      }
      reading.end();
    }
    while (!reading.ended) {
      await reading.changed();
      await storeWaiting();
    }
    await storing;
  } finally {
    await reading.close();
  }
  options.onProgress?.(Math.max(bytesRead, reading.bytesRead), summary());
  return summary();
}

function merged(read: ImportSummary | undefined, stored: ImportSummary): ImportSummary {
  const reasons = { ...read?.reasons };
  addCounts(reasons, stored.reasons);
  return {
    lines: read?.lines ?? 0,
    accepted: stored.accepted,
    skipped: (read?.skipped ?? 0) + stored.skipped,
    reasons,
    notes: { ...read?.notes },
  };
}
