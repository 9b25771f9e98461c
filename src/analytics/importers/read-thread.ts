/**
 * An import's reading thread: the bytes of a log are split into lines, parsed, validated, keyed and
 * hashed (line-parser.ts), and go back as batches of events for the calling thread to store. Reading
 * and storing then share the two halves of an import's work between two cores, instead of taking
 * turns on one.
 *
 * A file is read here, from its path (gunzipped when it starts with gzip's magic bytes): the storing
 * thread, the import's bottleneck, then neither reads nor copies the log's bytes. Any other input
 * (standard input) arrives as messages: a chunk of bytes (Uint8Array), then `null` at its end.
 *
 * Messages in: `{ kind: 'taken' }` each time the storing thread takes a batch, and chunks as above.
 * Messages out: ReadMessage, batches packed in columns (../model/packed-batch.ts).
 */
import { createReadStream } from 'node:fs';
import { Readable } from 'node:stream';
import { parentPort, workerData } from 'node:worker_threads';
import { createGunzip } from 'node:zlib';
import type { AssetRule } from '../capture/assets.ts';
import type { FormatName } from './formats.ts';
import { LineParser, type ImportSummary } from './line-parser.ts';
import { LineSplitter } from './lines.ts';
import { lookUpCountry } from '../ingest/dimensions/countries.ts';
import { packBatch, packedBuffers, type PackedBatch } from '../model/packed-batch.ts';

export interface ReadThreadData {
  format: FormatName;
  rule: AssetRule;
  /** The project's analytics secret, so visitor hashes are computed here. */
  secret: string;
  batchSize: number;
  /** A file to read here; without one, the input arrives as messages. */
  path?: string;
}

export type ReadMessage =
  /** A chunk was read: its bytes are no longer waiting (input sent as messages). */
  | { kind: 'read'; bytes: number }
  /** `bytesRead`: the file's (compressed) bytes read so far, for a file read here. */
  | { kind: 'batch'; batch: PackedBatch; summary: ImportSummary; bytesRead: number }
  /** The input ended and every batch has been sent. */
  | { kind: 'end'; summary: ImportSummary; bytesRead: number };

export type ReadInput = { kind: 'taken' } | Uint8Array | null;

/** Batches sent and not yet taken, beyond which a file is not read on: the storing side is behind. */
const maxWaitingBatches = 3;

const { format, rule, secret, batchSize, path } = workerData as ReadThreadData;
const splitter = new LineSplitter();
const parser = new LineParser(format, rule, secret);
const port = parentPort!;
let bytesRead = 0;
let waiting = 0;
let wake: (() => void) | undefined;
const send = (message: ReadMessage) => port.postMessage(message, message.kind === 'batch' ? packedBuffers(message.batch) : []);
const sendBatch = () => {
  waiting++;
  send({ kind: 'batch', batch: packBatch(parser.take(), lookUpCountry), summary: parser.summary, bytesRead });
};

function parse(chunk: Buffer | null): void {
  const now = Date.now();
  const lines = chunk === null ? splitter.finish() : splitter.push(chunk);
  for (const line of lines) {
    if (parser.add(line, now) >= batchSize) sendBatch();
  }
  if (chunk !== null) return;
  if (parser.size > 0) sendBatch();
  send({ kind: 'end', summary: parser.summary, bytesRead });
}

port.on('message', (input: ReadInput) => {
  if (input !== null && !(input instanceof Uint8Array)) {
    waiting--;
    wake?.();
    return;
  }
  parse(input === null ? null : Buffer.from(input.buffer, input.byteOffset, input.byteLength));
  if (input !== null) send({ kind: 'read', bytes: input.byteLength });
});

/**
 * The bytes of the file at `path`, gunzipped when its first bytes are gzip's magic ones. Read once, by
 * one stream: a path that can be read only once (a named pipe, `<(zcat …)`) loses nothing to a peek.
 */
async function* fileBytes(path: string): AsyncGenerator<Buffer> {
  const file = createReadStream(path, { highWaterMark: 1024 * 1024 });
  const chunks = file[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  const first = await chunks.next();
  if (first.done) return;
  const read = async function* () {
    bytesRead = file.bytesRead;
    yield first.value;
    for (let next = await chunks.next(); !next.done; next = await chunks.next()) {
      bytesRead = file.bytesRead;
      yield next.value;
    }
  };
  if (first.value[0] === 0x1f && first.value[1] === 0x8b) yield* Readable.from(read()).pipe(createGunzip());
  else yield* read();
}

if (path !== undefined) {
  for await (const chunk of fileBytes(path)) {
    parse(chunk);
    while (waiting >= maxWaitingBatches) await new Promise<void>((resolve) => (wake = resolve));
  }
  parse(null);
}
