import { parseJsonText, type JsonFailure } from '../../http/json.ts';
import { ndjsonLineCount, ndjsonLines, parseMemberInPieces, scanMember, type MemberScan } from '../../http/json-pieces.ts';
import type { ParseWork } from '../../lib/parse-pool.ts';
import { prepareRequest, type PreparedRequest } from './events-request.ts';
import { maxEventsPerRequest } from '../ingest/ingest.ts';
import { lookUpCountry } from '../ingest/dimensions/countries.ts';
import { packBatch, packedBuffers, unpackBatch, type PackedBatch } from '../model/packed-batch.ts';

const utf8 = new TextDecoder();

/**
 * An events API body, parsed and checked: what schema validation sees (`body`: the parsed value with
 * its `events` array emptied, so validation gives the messages it always gave without walking the
 * events again), how many events it held, and the request prepared for storing (absent when the body
 * has no `events` array, or too many events to take).
 */
type EventsBody<Prepared> = { failure: JsonFailure } | { failure?: undefined; body: unknown; count: number; prepared?: Prepared };
export type ParsedEventsBody = EventsBody<PreparedRequest>;

/** A parsed body as it crosses threads: the page views as columns (see ../model/packed-batch.ts). */
type PackedEventsBody = EventsBody<Omit<PreparedRequest, 'views'> & { views: PackedBatch }>;

/** One event per line; a line that is not JSON becomes that event's error, not the request's. */
function eventsOfLines(lines: string[]): { value: { events: unknown[] } } {
  const events = lines.map((line) => {
    try {
      return JSON.parse(line);
    } catch {
      return new Error('This line is not valid JSON.');
    }
  });
  return { value: { events } };
}

/**
 * NDJSON bytes as `{ events }`, each line decoded on its own (no string of the whole body, see
 * http/json-pieces.ts). Nesting is checked line by line before anything is parsed.
 */
export function parseNdjsonBytes(bytes: Uint8Array): { value: { events: unknown[] } } | { failure: JsonFailure } {
  const lines = ndjsonLines(bytes);
  return 'failure' in lines ? lines : eventsOfLines(lines.lines);
}

/**
 * How many events a body holds, counted on its bytes before anything is parsed: an NDJSON body's lines
 * that are not blank, or the elements of a JSON body's `events` array (scanMember in http/json-pieces.ts,
 * whose scan also cuts the body into the pieces it is parsed in). A JSON body that scan leaves to the
 * whole parse (a small one, or one of another shape) counts 0 here and is counted once parsed.
 */
function countEvents(bytes: Uint8Array, ndjson: boolean): { count: number; scan: MemberScan | null } {
  if (ndjson) return { count: ndjsonLineCount(bytes), scan: null };
  const scan = scanMember(bytes, 'events');
  return { count: scan?.count ?? 0, scan };
}

/** Parses and checks a JSON (`{"events": [...]}`) or NDJSON body's bytes; the same wherever it runs. */
export function parseEventsBody(bytes: Uint8Array, ndjson: boolean, now: number): ParsedEventsBody {
  // A body of more events than a request may hold is counted, not parsed, and refused (413) as it would be once parsed.
  const { count, scan } = countEvents(bytes, ndjson);
  if (count > maxEventsPerRequest) return { body: { events: [] }, count };
  const json = ndjson ? parseNdjsonBytes(bytes) : (parseMemberInPieces(bytes, 'events', scan) ?? parseJsonText(utf8.decode(bytes)));
  if ('failure' in json) return json;
  const parsed = json.value;
  const events = typeof parsed === 'object' && parsed !== null ? (parsed as { events?: unknown }).events : undefined;
  if (!Array.isArray(events)) return { body: parsed, count: 0 };
  const body = { ...(parsed as object), events: [] };
  if (events.length > maxEventsPerRequest) return { body, count: events.length };
  return { body, count: events.length, prepared: prepareRequest(events, now) };
}

/**
 * A body as it reaches the parse: its bytes, not a string. Decoding them is part of the parse, so a body
 * parsed in a thread is decoded there too, and crossing threads is a copy of bytes instead of a string
 * encoded again as UTF-8: both were a tenth of the API's event loop during ingestion.
 */
export interface EventsBodyInput {
  bytes: Uint8Array;
  ndjson: boolean;
  now: number;
}

/** parseEventsBody as a parse pool's work (lib/parse-pool.ts). */
export const eventsBodyWork: ParseWork<EventsBodyInput, ParsedEventsBody, PackedEventsBody> = {
  task: ({ bytes, ndjson, now }) => parseEventsBody(bytes, ndjson, now),
  pack(parsed) {
    if (parsed.failure !== undefined || parsed.prepared === undefined) return { message: parsed as PackedEventsBody, transfer: [] };
    const views = packBatch({ events: parsed.prepared.views, end: 0 }, lookUpCountry);
    return { message: { ...parsed, prepared: { ...parsed.prepared, views } }, transfer: packedBuffers(views) };
  },
  unpack(message) {
    if (message.failure !== undefined || message.prepared === undefined) return message as ParsedEventsBody;
    return { ...message, prepared: { ...message.prepared, views: unpackBatch(message.prepared.views).events } };
  },
};
