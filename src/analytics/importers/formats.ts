import type { IncomingEvent } from '../ingest/validate.ts';

/** A parsed log line: the requests it records, or why it is skipped. */
export type ParsedLine = { events: IncomingEvent[] } | { skip: string };

export interface LogFormat {
  /** Parses one line; `state` lets a format remember a header (CloudFront's `#Fields:`). */
  parse(line: string, state: Map<string, unknown>): ParsedLine;
}

const pageMethods = new Set(['GET', 'HEAD']);
const notPage = { skip: 'not a GET request' };
const malformed = { skip: 'malformed line' };

function event(fields: {
  method?: string;
  path?: string;
  at?: number;
  ip?: string;
  userAgent?: string;
  status?: number;
  referrer?: string;
  accept?: string;
}): ParsedLine {
  if (fields.method !== undefined && !pageMethods.has(fields.method.toUpperCase())) return notPage;
  if (!fields.path) return malformed;
  const value = (text: string | undefined) => (text === undefined || text === '' || text === '-' ? undefined : text);
  return {
    events: [
      {
        path: fields.path,
        timestamp: fields.at,
        ip: value(fields.ip),
        userAgent: value(fields.userAgent),
        status: Number.isInteger(fields.status) ? fields.status : undefined,
        referrer: value(fields.referrer),
        accept: value(fields.accept),
      },
    ],
  };
}

const months: Record<string, number> = { Jan: 0, Feb: 1, Mar: 2, Apr: 3, May: 4, Jun: 5, Jul: 6, Aug: 7, Sep: 8, Oct: 9, Nov: 10, Dec: 11 };
// The path stops at a space or quote (escapes such as \" stay inside it), so that when a line does not
// match, no two parts can split the same run of characters: a truncated line of n characters costs
// time linear in n, where `(\S+)[^"]*"` cost n² (seconds for one line of a few dozen kilobytes).
const combinedPattern =
  /^(\S+) \S+ \S+ \[(\d{2})\/(\w{3})\/(\d{4}):(\d{2}):(\d{2}):(\d{2}) ([+-])(\d{2})(\d{2})\] "(\S+) ((?:[^\s"\\]|\\.)+)(?: [^"]*)?" (\d{3}) \S+(?: "((?:[^"\\]|\\.)*)" "((?:[^"\\]|\\.)*)")?/;

/** nginx and Apache "combined" (and "common") access logs. */
const combined: LogFormat = {
  parse(line) {
    const match = combinedPattern.exec(line);
    if (!match || months[match[3]] === undefined) return malformed;
    const [, ip, day, month, year, hour, minute, second, sign, offsetHours, offsetMinutes, method, path, status, referrer, userAgent] = match;
    if (Number(day) < 1 || Number(day) > 31 || Number(hour) > 23 || Number(minute) > 59 || Number(second) > 60) return malformed;
    const offset = (sign === '-' ? -1 : 1) * (Number(offsetHours) * 60 + Number(offsetMinutes)) * 60_000;
    const at = Date.UTC(Number(year), months[month], Number(day), Number(hour), Number(minute), Number(second)) - offset;
    return event({ method, path, at, ip, status: Number(status), referrer, userAgent: userAgent?.replace(/\\(.)/g, '$1') });
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

/** Epoch milliseconds from seconds, milliseconds, microseconds or nanoseconds, or an RFC 3339 text. */
function time(value: unknown): number | undefined {
  if (typeof value === 'string' && !/^\d+$/.test(value)) {
    const at = Date.parse(value);
    return Number.isFinite(at) ? at : undefined;
  }
  const number = Number(value);
  if (!Number.isFinite(number) || number <= 0) return undefined;
  if (number > 1e17) return Math.floor(number / 1e6);
  if (number > 1e14) return Math.floor(number / 1e3);
  if (number > 1e11) return Math.floor(number);
  return Math.floor(number * 1000);
}

const text = (value: unknown) => (typeof value === 'string' ? value : undefined);

/** Cloudflare Logpush, `http_requests` dataset, one JSON object per line. */
const cloudflare: LogFormat = {
  parse(line) {
    const record = json(line);
    if (!record || Array.isArray(record)) return malformed;
    const headers = (record.RequestHeaders ?? {}) as Record<string, unknown>;
    return event({
      method: text(record.ClientRequestMethod),
      path: text(record.ClientRequestURI) ?? text(record.ClientRequestPath),
      at: time(record.EdgeStartTimestamp),
      ip: text(record.ClientIP),
      userAgent: text(record.ClientRequestUserAgent),
      status: Number(record.EdgeResponseStatus ?? record.OriginResponseStatus),
      referrer: text(record.ClientRequestReferer),
      accept: text(headers.accept) ?? text(headers.Accept),
    });
  },
};

/** Vercel log drains (JSON, one object or an array per line): requests are the entries with `proxy`. */
const vercel: LogFormat = {
  parse(line) {
    const record = json(line);
    if (!record) return malformed;
    const events: ParsedLine[] = (Array.isArray(record) ? record : [record]).map((entry) => {
      const proxy = (entry as Record<string, unknown>)?.proxy as Record<string, unknown> | undefined;
      if (!proxy) return { skip: 'not a request log entry' };
      const agents = proxy.userAgent;
      return event({
        method: text(proxy.method),
        path: text(proxy.path),
        at: time(proxy.timestamp ?? (entry as Record<string, unknown>).timestamp),
        ip: text(proxy.clientIp),
        userAgent: Array.isArray(agents) ? text(agents[0]) : text(agents),
        status: Number(proxy.statusCode),
        referrer: text(proxy.referer),
      });
    });
    const found = events.flatMap((parsed) => ('events' in parsed ? parsed.events : []));
    return found.length > 0 ? { events: found } : events[0];
  },
};

const cloudfrontFields = 'date time x-edge-location sc-bytes c-ip cs-method cs(Host) cs-uri-stem sc-status cs(Referer) cs(User-Agent) cs-uri-query'.split(' ');

/** Amazon CloudFront standard logs: tab-separated, columns named by the `#Fields:` header. */
const cloudfront: LogFormat = {
  parse(line, state) {
    if (line.startsWith('#Fields:')) {
      state.set('fields', line.slice(8).trim().split(/\s+/));
      return { skip: 'header line' };
    }
    if (line.startsWith('#')) return { skip: 'header line' };
    const names = (state.get('fields') as string[] | undefined) ?? cloudfrontFields;
    const values = line.split('\t');
    if (values.length < names.length) return malformed;
    const field = (name: string) => values[names.indexOf(name)];
    const decode = (value: string | undefined) => {
      try {
        return value === undefined ? undefined : decodeURIComponent(decodeURIComponent(value));
      } catch {
        return value;
      }
    };
    const at = Date.parse(`${field('date')}T${field('time')}Z`);
    if (!Number.isFinite(at)) return malformed;
    return event({
      method: field('cs-method'),
      path: field('cs-uri-stem'),
      at,
      ip: field('c-ip'),
      userAgent: decode(field('cs(User-Agent)')),
      status: Number(field('sc-status')),
      referrer: decode(field('cs(Referer)')),
    });
  },
};

/** Quire's own event objects, one per line (what the ingestion API takes as NDJSON). */
const ndjson: LogFormat = {
  parse(line) {
    const record = json(line);
    if (!record || Array.isArray(record)) return malformed;
    return { events: [record as unknown as IncomingEvent] };
  },
};

export const formats = { combined, cloudflare, vercel, cloudfront, ndjson } satisfies Record<string, LogFormat>;
export type FormatName = keyof typeof formats;
