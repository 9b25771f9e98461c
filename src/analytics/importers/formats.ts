import { parseCombined } from './combined.ts';
import { cloudfront } from './cloudfront.ts';
import type { RequestFields } from '../capture/request-event.ts';
import type { LogFormat, ParsedLine } from './log-format.ts';
import { cloudflareRequest, vercelRequest, type HostRequest, type NotARequest } from '../capture/host-records.ts';

const malformed = (why: string): ParsedLine => ({ skip: `malformed line (${why})` });
const one = (fields: RequestFields): ParsedLine => ({ requests: [fields] });
/** A host's log record (field mappings shared with the drains, ../capture/host-records.ts) as a parsed line. */
const fromHost = (request: HostRequest | NotARequest): ParsedLine => {
  if ('skip' in request) return request;
  const { requestId: _requestId, ...fields } = request;
  return one(fields);
};

/** nginx and Apache "combined" (and "common") access logs (combined.ts). */
const combined: LogFormat = {
  parse(line) {
    const parsed = parseCombined(line);
    return 'skip' in parsed ? parsed : one(parsed);
  },
};

function json(line: string): Record<string, unknown> | unknown[] | null {
  try {
    const value = JSON.parse(line);
    return typeof value === 'object' && value !== null ? value : null;
  } catch {
    return null;
  }
}

/** Cloudflare Logpush, `http_requests` dataset, one JSON object per line. */
const cloudflare: LogFormat = {
  parse(line) {
    const record = json(line);
    if (!record || Array.isArray(record)) return malformed('not a JSON object');
    return fromHost(cloudflareRequest(record));
  },
};

/** Vercel log drains (JSON, one object or an array per line): requests are the entries with `proxy`. */
const vercel: LogFormat = {
  parse(line) {
    const record = json(line);
    if (!record) return malformed('not JSON');
    const events = (Array.isArray(record) ? record : [record]).map((entry) => fromHost(vercelRequest(entry)));
    const found = events.flatMap((parsed) => ('requests' in parsed ? parsed.requests : []));
    return found.length > 0 ? { requests: found } : (events[0] ?? { skip: 'empty JSON array' });
  },
};

/** Quire's own event objects, one per line (what the ingestion API takes as NDJSON). */
const ndjson: LogFormat = {
  parse(line) {
    const record = json(line);
    if (!record || Array.isArray(record)) return malformed('not a JSON object');
    return one(record as RequestFields);
  },
};

export const formats = { combined, cloudflare, vercel, cloudfront, ndjson } satisfies Record<string, LogFormat>;
export type FormatName = keyof typeof formats;
