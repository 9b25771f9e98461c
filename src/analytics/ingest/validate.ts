import { isIP } from 'node:net';
import { markdownRequest } from './classify.ts';
import { normalizePath, type NormalizedPath } from './paths.ts';
import type { PreparedEvent, VisitorKey } from '../model/prepared-event.ts';
import { rangeVerification } from './verify/operator-ranges.ts';
import { requestHeaders } from './verify/request-headers.ts';
import { isStorableText, unstorableMessage } from '../../lib/storable-text.ts';

/** An event as the ingestion API, the tracker and the importers hand it over. */
export interface IncomingEvent {
  timestamp?: string | number;
  path: string;
  userAgent?: string;
  ip?: string;
  visitorId?: string;
  accept?: string;
  referrer?: string;
  status?: number;
  /** The response's Content-Type, where the source knows it (the proxy, some drains): the asset rule (assets.ts) reads it. */
  contentType?: string;
  /** Request header names to values, for Web Bot Auth (never stored). */
  headers?: Record<string, string>;
}

/** A site has few distinct paths, so their normalized forms are remembered (bounded, as path spellings are not). */
const normalizedCache = new Map<string, NormalizedPath | null>();
const normalizedCacheLimit = 20_000;

function normalized(path: string): NormalizedPath | null {
  let result = normalizedCache.get(path);
  if (result === undefined) {
    result = normalizePath(path);
    if (normalizedCache.size >= normalizedCacheLimit) normalizedCache.clear();
    normalizedCache.set(path, result);
  }
  return result;
}

const fields = new Set(['timestamp', 'path', 'userAgent', 'ip', 'visitorId', 'accept', 'referrer', 'status', 'headers', 'contentType']);
const maxFuture = 24 * 60 * 60 * 1000;
const earliest = Date.UTC(2000, 0, 1);

/** The `utm_source` parameter of a path's query string, when there is one. */
function utmSourceOf(path: string): string | null {
  const query = path.indexOf('?');
  if (query === -1) return null;
  const end = path.indexOf('#', query);
  return new URLSearchParams(path.slice(query + 1, end === -1 ? undefined : end)).get('utm_source') || null;
}

function optionalText(event: Record<string, unknown>, name: string, max: number): string | undefined {
  const value = event[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw new Error(`${name} must be a string.`);
  if (value.length > max) throw new Error(`${name} is longer than ${max} characters.`);
  if (!isStorableText(value)) throw new Error(unstorableMessage(name));
  return value;
}

function timestamp(value: unknown, now: number): number {
  if (value === undefined || value === null) return now;
  const at = typeof value === 'number' ? value : typeof value === 'string' && /^\d{4}-\d\d-\d\dT/.test(value) ? Date.parse(value) : Number.NaN;
  if (!Number.isFinite(at)) throw new Error('timestamp must be an ISO 8601 date-time with offset (2026-11-21T09:30:00Z) or epoch milliseconds.');
  if (at < earliest || at > now + maxFuture)
    throw new Error('timestamp is before 2000 or more than a day in the future; check the clock and the unit (milliseconds).');
  return Math.floor(at);
}

/**
 * The fields that identify a visitor (`visitorId`, or `ip` and `userAgent`), checked; absent ones
 * undefined. Views and the feedback and search events take them alike (../feedback/visitor.ts).
 */
export function visitorFields(event: Record<string, unknown>): VisitorKey {
  const userAgent = optionalText(event, 'userAgent', 2048);
  const ip = optionalText(event, 'ip', 64);
  if (ip !== undefined && isIP(ip) === 0) throw new Error(`ip "${ip}" is not an IPv4 or IPv6 address.`);
  const visitorId = optionalText(event, 'visitorId', 200);
  if (visitorId === '') throw new Error('visitorId must not be empty; leave it out to identify visitors by IP and user agent.');
  return { userAgent, ip, visitorId };
}

/** Checks one event; throws an Error whose message says what to fix. */
export function prepareEvent(input: unknown, now: number): PreparedEvent {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) throw new Error('Each event must be a JSON object.');
  const event = input as Record<string, unknown>;
  const unknown = Object.keys(event).find((name) => !fields.has(name));
  if (unknown !== undefined) throw new Error(`"${unknown}" is not an event field; fields are ${[...fields].join(', ')}.`);
  if (typeof event.path !== 'string' || event.path === '') throw new Error('path is required: the requested page path, such as /guides/setup.');
  if (event.path.length > 2048) throw new Error('path is longer than 2048 characters.');
  if (!isStorableText(event.path)) throw new Error(unstorableMessage('path'));
  const path = normalized(event.path);
  if (!path) throw new Error(`path "${event.path.slice(0, 100)}" is not a URL path; it must start with /.`);
  const { userAgent = '', ip, visitorId } = visitorFields(event);
  const accept = optionalText(event, 'accept', 2048);
  const referrer = optionalText(event, 'referrer', 2048) ?? null;
  optionalText(event, 'contentType', 256);
  const status = event.status;
  if (status !== undefined && status !== null && !(Number.isInteger(status) && (status as number) >= 100 && (status as number) <= 599)) {
    throw new Error('status must be an HTTP status code from 100 to 599.');
  }
  return {
    at: timestamp(event.timestamp, now),
    path: path.path,
    markdown: markdownRequest(path.markdown, accept, userAgent),
    userAgent,
    visitorKey: { visitorId, ip, userAgent },
    status: typeof status === 'number' ? status : null,
    referrer: referrer || null,
    utmSource: utmSourceOf(event.path),
    eventKey: null,
    verification: rangeVerification(userAgent, ip),
    signed: event.headers === undefined || event.headers === null ? null : { path: event.path, headers: requestHeaders(event.headers) },
  };
}

/** Why one event of a request was refused, by its index in the request. */
export interface EventError {
  index: number;
  message: string;
}

/**
 * Checks raw inputs one by one with `check` (a parse failure arrives as an Error): what passed, in
 * order, and each refused input's index and message.
 */
export function checkEach<T>(inputs: unknown[], check: (input: unknown) => T): { checked: T[]; errors: EventError[] } {
  const checked: T[] = [];
  const errors: EventError[] = [];
  inputs.forEach((input, index) => {
    try {
      if (input instanceof Error) throw input;
      checked.push(check(input));
    } catch (error) {
      errors.push({ index, message: (error as Error).message });
    }
  });
  return { checked, errors };
}
