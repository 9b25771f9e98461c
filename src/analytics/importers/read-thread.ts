/**
 * An import's reading thread: the bytes of a log arrive as messages, are split into lines, parsed,
 * validated, keyed and hashed (line-parser.ts), and go back as batches of events for the calling
 * thread to store. Reading and storing then share the two halves of an import's work between two
 * cores, instead of taking turns on one.
 *
 * Messages in: a chunk of bytes (Uint8Array), then `null` at the end of the input.
 * Messages out: ReadMessage, batches packed in columns (../model/packed-batch.ts).
 */
import { parentPort, workerData } from 'node:worker_threads';
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
}

export type ReadMessage =
  /** A chunk was read: its bytes are no longer waiting. */
  | { kind: 'read'; bytes: number }
  | { kind: 'batch'; batch: PackedBatch; summary: ImportSummary }
  /** The input ended and every batch has been sent. */
  | { kind: 'end'; summary: ImportSummary };

const { format, rule, secret, batchSize } = workerData as ReadThreadData;
const splitter = new LineSplitter();
const parser = new LineParser(format, rule, secret);
const port = parentPort!;
const send = (message: ReadMessage) => port.postMessage(message, message.kind === 'batch' ? packedBuffers(message.batch) : []);

port.on('message', (chunk: Uint8Array | null) => {
  const now = Date.now();
  const lines = chunk === null ? splitter.finish() : splitter.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
  for (const line of lines) {
    if (parser.add(line, now) >= batchSize) send({ kind: 'batch', batch: packBatch(parser.take(), lookUpCountry), summary: parser.summary });
  }
  if (chunk !== null) return send({ kind: 'read', bytes: chunk.byteLength });
  if (parser.size > 0) send({ kind: 'batch', batch: packBatch(parser.take(), lookUpCountry), summary: parser.summary });
  send({ kind: 'end', summary: parser.summary });
});
