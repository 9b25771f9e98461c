/**
 * One request as a log, drain or proxy records it, and the one place that decides what of it becomes
 * an event: only GET and HEAD of pages (assets.ts) are views; an address that is not an IP is
 * dropped and the view kept (the visitor is then identified by what remains); a path that would not
 * normalize is kept in an escaped form (safe-path.ts). Each decision is counted under a reason that
 * names it, so a summary says what really happened to the lines.
 */
import { isIP } from 'node:net';
import { assetReason, skipsAsset, type AssetRule } from './assets.ts';
import { escapeUnsafePath } from './safe-path.ts';
import type { IncomingEvent } from '../ingest/validate.ts';

/** The fields a source knows of a request; `method` is checked here and not stored. */
export type RequestFields = Omit<IncomingEvent, 'path' | 'timestamp'> & {
  method?: string;
  path?: string;
  /** Epoch milliseconds, or what the events API takes. */
  at?: string | number;
};

/** Counts by reason, as summaries, drain answers and the proxy's counters keep them. */
export type ReasonCounts = Record<string, number>;

/** Adds `count` under `reason`. */
export function countReason(counts: ReasonCounts, reason: string, count = 1): void {
  counts[reason] = (counts[reason] ?? 0) + count;
}

/** Adds every count of `from` to `into`. */
export function addCounts(into: ReasonCounts, from: ReasonCounts): void {
  for (const [reason, count] of Object.entries(from)) countReason(into, reason, count);
}

/** Reasons for events kept with a change (counted beside skipped lines in summaries). */
export const ipDropped = 'client IP dropped (not an IPv4 or IPv6 address); visitor identified by user agent';
export const pathEscaped = 'path kept escaped (invalid percent-encoding or control characters)';

/** A summary reason for an event validation refused: its message without the quoted values, so equal causes count together. */
export const invalidReason = (message: string): string => `invalid event: ${message.replace(/"[^"]*"/g, '…')}`;

const pageMethods = new Set(['GET', 'HEAD', 'get', 'head']);
const absent = (text: unknown) => text === '' || text === '-';

/** The event of a request, or the reason it is not a view; `note` hears of changes made to keep it. */
export function requestEvent(fields: RequestFields, rule: AssetRule, note: (reason: string) => void): IncomingEvent | { skip: string } {
  const { method, path, contentType } = fields;
  // NDJSON records are any JSON: a method or content type that is not text is that record's fault, not the batch's.
  if (method !== undefined && method !== null) {
    if (typeof method !== 'string' || (!pageMethods.has(method) && !pageMethods.has(method.toUpperCase()))) return { skip: 'not a GET or HEAD request' };
  }
  if (contentType !== undefined && contentType !== null && typeof contentType !== 'string') return { skip: invalidReason('contentType must be a string.') };
  if (path === undefined || path === '') return { skip: 'no request path' };
  if (typeof path === 'string' && skipsAsset(rule, path, fields.contentType)) return { skip: assetReason };
  // Log formats give the request's fields and its time; anything else (NDJSON) is an event object,
  // whose other fields are kept for validation to judge.
  let event: IncomingEvent;
  if (fields.at === undefined) {
    const { method: _method, at: _at, ...rest } = fields;
    event = rest as IncomingEvent;
  } else {
    event = { path, timestamp: fields.at, ip: fields.ip, userAgent: fields.userAgent, referrer: fields.referrer, status: fields.status };
    if (fields.accept !== undefined) event.accept = fields.accept;
    if (fields.contentType !== undefined) event.contentType = fields.contentType;
    if (fields.headers !== undefined) event.headers = fields.headers;
  }
  if (typeof path === 'string') {
    const safe = escapeUnsafePath(path);
    if (safe !== path) {
      event.path = safe;
      note(pathEscaped);
    }
  }
  if (absent(event.ip)) event.ip = undefined;
  else if (typeof event.ip === 'string' && isIP(event.ip) === 0) {
    event.ip = undefined;
    note(ipDropped);
  }
  if (absent(event.userAgent)) event.userAgent = undefined;
  if (absent(event.referrer)) event.referrer = undefined;
  if (absent(event.accept)) event.accept = undefined;
  if (absent(event.contentType)) event.contentType = undefined;
  if (event.status !== undefined && !Number.isInteger(event.status)) event.status = undefined;
  return event;
}
