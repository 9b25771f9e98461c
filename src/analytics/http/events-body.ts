import { nestsTooDeep } from '../../http/json.ts';
import { prepareRequest, type PreparedRequest } from '../feedback/ingest.ts';
import type { EventError } from '../ingest/ingest.ts';
import { maxEventsPerRequest } from '../ingest/ingest.ts';
import type { PreparedInteraction } from '../feedback/validate.ts';
import { packBatch, unpackBatch, type PackedBatch } from '../importers/packed-batch.ts';

/**
 * An events API body, parsed and checked: what schema validation sees (`body`: the parsed value with
 * its `events` array emptied, so validation gives the messages it always gave without walking the
 * events again), how many events it held, and the request prepared for storing (absent when the body
 * has no `events` array, or too many events to take).
 */
export type ParsedEventsBody = { failure: 'not-json' | 'too-deep' } | { failure?: undefined; body: unknown; count: number; prepared?: PackedRequest };

/** A prepared request as it crosses threads: the page views as columns (see packed-batch.ts). */
export interface PackedRequest {
  views: PackedBatch;
  interactions: PreparedInteraction[];
  errors: EventError[];
}

/** NDJSON: one event per line; a line that is not JSON becomes that event's error, not the request's. */
export function parseNdjson(text: string): unknown[] {
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      try {
        return JSON.parse(line);
      } catch {
        return new Error('This line is not valid JSON.');
      }
    });
}

/** Parses and checks a JSON (`{"events": [...]}`) or NDJSON body; the same wherever it runs. */
export function parseEventsBody(text: string, ndjson: boolean, now: number): ParsedEventsBody {
  let parsed: unknown;
  if (ndjson) {
    if (nestsTooDeep(text, true)) return { failure: 'too-deep' };
    parsed = { events: parseNdjson(text) };
  } else {
    // An empty body is no body: validation then says the body is required.
    if (text.trim() === '') return { body: undefined, count: 0 };
    if (nestsTooDeep(text)) return { failure: 'too-deep' };
    try {
      parsed = JSON.parse(text);
    } catch {
      return { failure: 'not-json' };
    }
  }
  const events = typeof parsed === 'object' && parsed !== null ? (parsed as { events?: unknown }).events : undefined;
  if (!Array.isArray(events)) return { body: parsed, count: 0 };
  const body = { ...(parsed as object), events: [] };
  if (events.length > maxEventsPerRequest) return { body, count: events.length };
  const { views, interactions, errors } = prepareRequest(events, now);
  return { body, count: events.length, prepared: { views: packBatch({ events: views, end: 0 }), interactions, errors } };
}

export function unpackRequest({ views, interactions, errors }: PackedRequest): PreparedRequest {
  return { views: unpackBatch(views).events, interactions, errors };
}

/** The buffers of a parsed body's columns, moved (not copied) to the thread that receives it. */
export function transferables(parsed: ParsedEventsBody): ArrayBuffer[] {
  if (parsed.failure !== undefined || parsed.prepared === undefined) return [];
  const { views } = parsed.prepared;
  return [views.at, views.status, views.markdown, views.verification, views.path, views.userAgent, views.visitorAgent, views.referrer, views.utmSource].map(
    (column) => column.buffer as ArrayBuffer,
  );
}
