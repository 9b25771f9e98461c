/**
 * A drain's batch from its bytes to prepared, keyed events: decompressed within the ingestion limit
 * and split into records (body.ts), read with the host's field mappings and keyed (batch-events.ts),
 * then validated as every event is. Large batches run it in a parse thread (parse-thread.ts, lib/parse-pool.ts),
 * small ones on the event loop: the same function, the same answers.
 */
import { ApiError, type ErrorCode } from '../../http/errors.ts';
import type { ParseWork } from '../../lib/parse-pool.ts';
import type { AssetRule } from '../capture/assets.ts';
import { prepareKeyed } from '../capture/keyed-events.ts';
import { lookUpCountry } from '../ingest/dimensions/countries.ts';
import { packBatch, packedBuffers, unpackBatch, type PackedBatch } from '../model/packed-batch.ts';
import type { PreparedEvent } from '../model/prepared-event.ts';
import { countReason, type ReasonCounts } from '../capture/request-event.ts';
import { batchEvents } from './batch-events.ts';
import { batchRecords, decompressed } from './body.ts';
import type { DrainKind } from './drains.ts';

export interface DrainBatchInput {
  kind: DrainKind;
  drainId: string;
  /** The body as received. */
  body: Uint8Array;
  gzip: boolean;
  /** Bytes the body may expand to (QUIRE_INGEST_BODY_LIMIT_BYTES). */
  limit: number;
  rule: AssetRule;
  now: number;
}

type DrainBatch<Events> =
  { failure: { code: ErrorCode; message: string } } | { failure?: undefined; events: Events; skipped: ReasonCounts; notes: ReasonCounts };

/**
 * The batch's prepared events, with the records skipped and the views noted by reason; or, for a body
 * that cannot be read at all, the error to answer with.
 */
export type PreparedDrainBatch = DrainBatch<PreparedEvent[]>;

export function prepareDrainBatch({ kind, drainId, body, gzip, limit, rule, now }: DrainBatchInput): PreparedDrainBatch {
  try {
    const bytes = decompressed(Buffer.from(body.buffer, body.byteOffset, body.byteLength), gzip, limit);
    const batch = batchEvents(kind, drainId, bytes, batchRecords(bytes), rule);
    const events = prepareKeyed(
      batch.events.map((event) => event.input),
      batch.events.map((event) => event.key),
      (reason) => countReason(batch.skipped, reason),
      now,
    );
    return { events, skipped: batch.skipped, notes: batch.notes };
  } catch (error) {
    // Errors cross threads as data: the body's own fault becomes the same answer wherever it was read.
    if (error instanceof ApiError) return { failure: { code: error.code, message: error.message } };
    throw error;
  }
}

/** prepareDrainBatch as a parse pool's work (lib/parse-pool.ts): the events cross threads as columns (../model/packed-batch.ts). */
export const drainBatchWork: ParseWork<DrainBatchInput, PreparedDrainBatch, DrainBatch<PackedBatch>> = {
  task: prepareDrainBatch,
  pack(prepared) {
    if (prepared.failure !== undefined) return { message: prepared, transfer: [] };
    const events = packBatch({ events: prepared.events, end: 0 }, lookUpCountry);
    return { message: { ...prepared, events }, transfer: packedBuffers(events) };
  },
  unpack: (message) => (message.failure !== undefined ? message : { ...message, events: unpackBatch(message.events).events }),
};
