import { createHash } from 'node:crypto';
import { createInterface } from 'node:readline';
import { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { prepareAll, storeEvents, type IngestProject, type IngestState } from '../ingest/ingest.ts';
import { formats, type FormatName } from './formats.ts';

export interface ImportSummary {
  lines: number;
  accepted: number;
  skipped: number;
  /** Skipped lines and events by reason. */
  reasons: Record<string, number>;
}

export interface ImportOptions {
  /** Called with the compressed bytes read so far, at most a few times a second. */
  onProgress?: (bytesRead: number, summary: ImportSummary) => void;
  /** Lines per transaction (default 10,000): a log is read faster than it is stored, so bigger commits pay. */
  batchSize?: number;
}

/** The input's bytes, gunzipped when they start with the gzip magic bytes (so `.gz` files need no flag). */
async function* decompressed(input: Readable, counted: (bytes: number) => void): AsyncGenerator<Buffer> {
  const iterator = input[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
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

/** A line's id: the same file imported again yields the same ids, which the database stores once. */
function lineKey(lineNumber: number, line: string, index: number): string {
  return createHash('sha256').update(`${lineNumber}\n${index}\n${line}`).digest('base64url').slice(0, 22);
}

function reasonOf(message: string): string {
  return `invalid event: ${message.replace(/"[^"]*"/g, '…')}`;
}

/** Reads a log, stores its page views in batches, and reports what was read, accepted and skipped. */
export async function importLog(
  analytics: IngestState,
  project: IngestProject,
  format: FormatName,
  input: Readable,
  options: ImportOptions = {},
): Promise<ImportSummary> {
  const parser = formats[format];
  const state = new Map<string, unknown>();
  const summary: ImportSummary = { lines: 0, accepted: 0, skipped: 0, reasons: {} };
  const skip = (reason: string, count = 1) => {
    summary.skipped += count;
    summary.reasons[reason] = (summary.reasons[reason] ?? 0) + count;
  };
  let bytesRead = 0;
  let lastReport = 0;
  let batch: { input: unknown; key: string }[] = [];
  const flush = async () => {
    const { events, errors } = prepareAll(batch.map((entry) => entry.input));
    const keys = batch.filter((_entry, index) => !errors.some((error) => error.index === index)).map((entry) => entry.key);
    events.forEach((event, index) => (event.eventKey = keys[index]));
    for (const error of errors) skip(reasonOf(error.message));
    const { stored, duplicates } = await storeEvents(analytics, project, events);
    summary.accepted += stored;
    if (duplicates > 0) skip('already imported', duplicates);
    batch = [];
    if (options.onProgress && Date.now() - lastReport > 200) {
      lastReport = Date.now();
      options.onProgress(bytesRead, summary);
    }
  };
  const lines = createInterface({ input: Readable.from(decompressed(input, (bytes) => (bytesRead += bytes))), crlfDelay: Infinity });
  for await (const line of lines) {
    summary.lines++;
    if (line.trim() === '') {
      skip('empty line');
      continue;
    }
    const parsed = parser.parse(line, state);
    if ('skip' in parsed) {
      skip(parsed.skip);
      continue;
    }
    parsed.events.forEach((event, index) => batch.push({ input: event, key: lineKey(summary.lines, line, index) }));
    if (batch.length >= (options.batchSize ?? 10_000)) await flush();
  }
  await flush();
  options.onProgress?.(bytesRead, summary);
  return summary;
}
