/**
 * What one record of a hosting platform's request log says about the request, by each platform's
 * published field list. The log importer (files) and the push drains (HTTP batches) read the same
 * records, so the field mappings live here once.
 */

/** A request as a host's log records it; every field may be missing. */
export interface HostRequest {
  method?: string;
  path?: string;
  /** Epoch milliseconds. */
  at?: number;
  ip?: string;
  userAgent?: string;
  status?: number;
  referrer?: string;
  accept?: string;
  /** The response's Content-Type, where the host logs it (Cloudflare, Netlify). */
  contentType?: string;
  /** Request headers the host logged (Cloudflare `RequestHeaders`), lower-case names, when they carry a signature. */
  headers?: Record<string, string>;
  /** The host's own id of the request (Cloudflare `RayID`, Vercel `requestId`, Netlify `request_id`). */
  requestId?: string;
}

/** A record that is no request (a build log line, a test upload), with the reason it is skipped. */
export interface NotARequest {
  skip: string;
}

type Fields = Record<string, unknown>;

const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined);

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

const status = (value: unknown) => (typeof value === 'number' && Number.isInteger(value) ? value : undefined);
const isObject = (value: unknown): value is Fields => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Logged headers in lower case, kept only when they carry a Web Bot Auth signature (the only use of them). */
function signedHeaders(logged: unknown, host: string | undefined): Record<string, string> | undefined {
  if (!isObject(logged)) return undefined;
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(logged)) if (typeof value === 'string') headers[name.toLowerCase()] = value;
  if (headers.signature === undefined) return undefined;
  if (headers.host === undefined && host !== undefined) headers.host = host;
  return headers;
}

/** Cloudflare Logpush, dataset `http_requests` (developers.cloudflare.com/logs/reference/log-fields/zone/http_requests/). */
export function cloudflareRequest(record: Fields): HostRequest | NotARequest {
  // Logpush checks an HTTP destination by uploading this object before the job starts.
  if (record.content === 'tests' && Object.keys(record).length === 1) return { skip: 'Logpush destination test' };
  const logged = isObject(record.RequestHeaders) ? record.RequestHeaders : {};
  const host = text(record.ClientRequestHost);
  return {
    method: text(record.ClientRequestMethod),
    path: text(record.ClientRequestURI) ?? text(record.ClientRequestPath),
    at: time(record.EdgeStartTimestamp),
    ip: text(record.ClientIP),
    userAgent: text(record.ClientRequestUserAgent),
    status: status(record.EdgeResponseStatus) ?? status(record.OriginResponseStatus),
    referrer: text(record.ClientRequestReferer),
    accept: text(logged.accept) ?? text(logged.Accept),
    contentType: text(record.EdgeResponseContentType),
    headers: signedHeaders(logged, host),
    requestId: text(record.RayID),
  };
}

/** Vercel log drains (vercel.com/docs/drains/reference/logs): requests are the entries with a `proxy` object. */
export function vercelRequest(entry: unknown): HostRequest | NotARequest {
  if (!isObject(entry) || !isObject(entry.proxy)) return { skip: 'not a request log entry' };
  const { proxy } = entry;
  // -1: the response was revalidated in the background, not asked for by a visitor.
  if (proxy.statusCode === -1) return { skip: 'background revalidation' };
  const agents = proxy.userAgent;
  return {
    method: text(proxy.method),
    path: text(proxy.path),
    at: time(proxy.timestamp ?? entry.timestamp),
    ip: text(proxy.clientIp),
    userAgent: Array.isArray(agents) ? text(agents[0]) : text(agents),
    status: status(proxy.statusCode),
    referrer: text(proxy.referer),
    requestId: text(entry.requestId) ?? text(entry.id),
  };
}

/** The path and query of a logged URL, which may be absolute (`https://host/path?query`) or a path already. */
function pathOf(url: string | undefined): string | undefined {
  if (url === undefined || url.startsWith('/')) return url;
  const parsed = URL.parse(url);
  return parsed === null ? undefined : parsed.pathname + parsed.search;
}

/** Netlify log drains, traffic log output (docs.netlify.com/manage/monitoring/log-drains/). */
export function netlifyRequest(record: Fields): HostRequest | NotARequest {
  if (record.log_type !== undefined && record.log_type !== 'traffic') return { skip: 'not a traffic log entry' };
  return {
    method: text(record.method),
    path: pathOf(text(record.url)),
    at: time(record.timestamp),
    ip: text(record.client_ip),
    userAgent: text(record.user_agent),
    status: status(record.status_code),
    referrer: text(record.referrer),
    contentType: text(record.content_type),
    requestId: text(record.request_id),
  };
}
