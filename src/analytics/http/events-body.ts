import { nestsTooDeep, parseJsonText, type JsonFailure } from '../../http/json.ts';
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

/**
 * NDJSON as `{ events }`: one event per line; a line that is not JSON becomes that event's error, not
 * the request's. Nesting is checked line by line before anything is parsed.
 */
export function parseNdjsonText(text: string): { value: { events: unknown[] } } | { failure: JsonFailure } {
  if (nestsTooDeep(text, true)) return { failure: 'too-deep' };
  const events = text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      try {
        return JSON.parse(line);
      } catch {
        return new Error('This line is not valid JSON.');
      }
    });
  return { value: { events } };
}

/** Parses and checks a JSON (`{"events": [...]}`) or NDJSON body; the same wherever it runs. */
export function parseEventsBody(text: string, ndjson: boolean, now: number): ParsedEventsBody {
  const json = ndjson ? parseNdjsonText(text) : parseJsonText(text);
  if ('failure' in json) return json;
  const parsed = json.value;
  const events = typeof parsed === 'object' && parsed !== null ? (parsed as { events?: unknown }).events : undefined;
  if (!Array.isArray(events)) return { body: parsed, count: 0 };
  const body = { ...(parsed as object), events: [] };
  if (events.length > maxEventsPerRequest) return { body, count: events.length };
  const { views, interactions, errors } = prepareRequest(events, now);
  return { body, count: events.length, prepared: { views: packBatch({ events: views, end: 0 }), interactions, errors } };
}

/** parseEventsBody as a parse pool's task (lib/parse-pool.ts). */
export const eventsBodyTask = ({ text, ndjson, now }: { text: string; ndjson: boolean; now: number }): ParsedEventsBody => parseEventsBody(text, ndjson, now);

export function unpackRequest({ views, interactions, errors }: PackedRequest): PreparedRequest {
  return { views: unpackBatch(views).events, interactions, errors };
}
