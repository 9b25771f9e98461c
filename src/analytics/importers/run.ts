import { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import type { IngestProject, IngestState } from '../ingest/ingest.ts';
import type { FormatName } from './formats.ts';
import { LogBatch, type ImportSummary } from './log-batch.ts';
import { LineSplitter } from './lines.ts';

export interface ImportOptions {
  /** Called with the compressed bytes read so far, at most a few times a second. */
  onProgress?: (bytesRead: number, summary: ImportSummary) => void;
  /** Events per transaction (default 10,000). */
  batchSize?: number;
}

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

/**
 * Reads a log, stores its page views in batches, and reports what was read, accepted and skipped.
 * Importing the same file again (or a file a tail already read) stores nothing twice: see line-keys.ts.
 */
export async function importLog(
  analytics: IngestState,
  project: IngestProject & { skip_assets?: number },
  format: FormatName,
  input: Readable,
  options: ImportOptions = {},
): Promise<ImportSummary> {
  const batch = new LogBatch(analytics, project, format, options.batchSize);
  const splitter = new LineSplitter();
  let bytesRead = 0;
  let lastReport = 0;
  const report = () => {
    if (options.onProgress && Date.now() - lastReport > 200) {
      lastReport = Date.now();
      options.onProgress(bytesRead, batch.summary);
    }
  };
  for await (const chunk of decompressed(input, (bytes) => (bytesRead += bytes))) {
    for (const line of splitter.push(chunk)) {
      const stored = batch.add(line);
      if (stored) {
        await stored;
        report();
      }
    }
  }
  for (const line of splitter.finish()) await batch.add(line);
  await batch.flush();
  options.onProgress?.(bytesRead, batch.summary);
  return batch.summary;
}
