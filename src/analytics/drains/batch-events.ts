import { createHash } from 'node:crypto';
import { cloudflareRequest, netlifyRequest, vercelRequest, type HostRequest, type NotARequest } from '../capture/host-records.ts';
import type { AssetRule } from '../capture/assets.ts';
import { countReason, requestEvent, type RequestFields } from '../capture/request-event.ts';
import type { BatchRecord } from './body.ts';
import type { DrainKind } from './drains.ts';

/** An event of the batch and its key: the same record sent again gets the same key, which the database stores once. */
export interface KeyedEvent {
  input: unknown;
  key: string;
}

export interface BatchEvents {
  events: KeyedEvent[];
  /** Records that are not page views, or could not be read, by reason. */
  skipped: Record<string, number>;
  /** Views kept with a change (an invalid client IP dropped, a path escaped), by reason. */
  notes: Record<string, number>;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** How each kind of drain reads one record (field mappings shared with the importer, ../capture/host-records.ts). */
const readers: Record<Exclude<DrainKind, 'ndjson'>, (value: unknown) => HostRequest | NotARequest> = {
  vercel: vercelRequest,
  cloudflare: (value) => (isObject(value) ? cloudflareRequest(value) : { skip: 'record is not a JSON object' }),
  netlify: (value) => (isObject(value) ? netlifyRequest(value) : { skip: 'record is not a JSON object' }),
};

/**
 * A record's request fields and the host's request id, or why it is not a request. A generic drain's
 * records are Quire's event objects (what the events API takes, as the importer's ndjson format reads
 * them): they carry no host request id, and any field they hold stays for validation to judge.
 */
function readRecord(kind: DrainKind, value: unknown): { fields: RequestFields; requestId?: string } | NotARequest {
  if (kind === 'ndjson') return isObject(value) ? { fields: value as RequestFields } : { skip: 'record is not a JSON object' };
  const request = readers[kind](value);
  if ('skip' in request) return request;
  const { requestId, ...fields } = request;
  return { fields, requestId };
}

const digest = (text: string) => createHash('sha256').update(text).digest('base64url').slice(0, 22);

/**
 * Turns a batch's records into keyed events. A record's key is the host's request id where it gives
 * one (so a request is one view even when a retry batches it differently), else the batch body's
 * digest and the record's place in it, scoped to the drain.
 */
export function batchEvents(kind: DrainKind, drainId: string, body: Buffer, records: BatchRecord[], rule: AssetRule): BatchEvents {
  const batch: BatchEvents = { events: [], skipped: {}, notes: {} };
  const skip = (reason: string) => countReason(batch.skipped, reason);
  const note = (reason: string) => countReason(batch.notes, reason);
  const seen = new Set<string>();
  const bodyDigest = createHash('sha256').update(body).digest('base64url');
  records.forEach((record, index) => {
    if ('error' in record) return skip(record.error);
    const positionKey = () => `d${digest(`${drainId}\n${bodyDigest}\n${index}`)}`;
    const request = readRecord(kind, record.value);
    if ('skip' in request) return skip(request.skip);
    const { fields, requestId } = request;
    // The rule shared with logs and the proxy: only GET and HEAD of pages are views (static assets by
    // path and content type, per the project's setting); a bad IP or path is repaired, not refused.
    const notes: string[] = [];
    const event = requestEvent(fields, rule, (reason) => notes.push(reason));
    if ('skip' in event) return skip(event.skip);
    const key = requestId === undefined ? positionKey() : `h${digest(`${kind}\n${requestId}`)}`;
    // Vercel logs a request once per log line of its function, each with the same proxy fields.
    if (seen.has(key)) return skip('request already in this batch');
    seen.add(key);
    notes.forEach(note);
    batch.events.push({ input: event, key });
  });
  return batch;
}
