/**
 * What the proxy changes in the messages it relays, both ways: hop-by-hop headers dropped (RFC 9110
 * §7.6.1), trailers kept only where a trailer section may carry them, and the targets it refuses.
 */
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { errors } from 'undici';
import { headerValue } from '../capture/signature-headers.ts';

/** Headers that describe one connection, not the message: never forwarded in either direction. */
export const hopByHop = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'te', 'http2-settings', 'expect']);

/** Fields a trailer section must not carry (RFC 9110 §6.5.1): they frame, route or authenticate the message. */
const notTrailers = new Set([
  ...hopByHop,
  'trailer',
  'content-length',
  'content-type',
  'content-encoding',
  'host',
  'authorization',
  'set-cookie',
  'cache-control',
]);

export function isLoopback(address: string | undefined): boolean {
  return address === '127.0.0.1' || address === '::1' || address === '::ffff:127.0.0.1';
}

/** Header names the Connection header lists: hop-by-hop for this one message. */
function connectionListed(headers: IncomingHttpHeaders): string[] {
  const value = headerValue(headers, 'connection');
  if (value === undefined) return [];
  // Called for nearly every message both ways (an upstream says `keep-alive`): one pass, no intermediate lists.
  const names: string[] = [];
  for (const part of value.split(',')) {
    const name = part.trim().toLowerCase();
    if (name !== '') names.push(name);
  }
  return names;
}

/** The end-to-end headers of a message: its own, less the hop-by-hop ones. */
export function endToEnd(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  const listed = connectionListed(headers);
  const kept: IncomingHttpHeaders = {};
  for (const name in headers) {
    if (hopByHop.has(name) || (listed.length > 0 && listed.includes(name))) continue;
    kept[name] = headers[name];
  }
  // "TE: trailers" is the one TE value that means something end to end.
  if (headers['te'] === 'trailers') kept['te'] = 'trailers';
  return kept;
}

/** The upstream's trailer fields that may follow a response's body, or undefined when there are none. */
export function forwardedTrailers(trailers: IncomingHttpHeaders | undefined): Record<string, string | string[]> | undefined {
  let kept: Record<string, string | string[]> | undefined;
  for (const name in trailers) {
    const value = trailers[name];
    if (value === undefined || notTrailers.has(name)) continue;
    (kept ??= {})[name] = value;
  }
  return kept;
}

/** A request target the proxy refuses to forward: not origin-form, or climbing out of the site's root. */
export function unsafeTarget(url: string): boolean {
  if (url.charCodeAt(0) !== 47 /* '/' */ || url.startsWith('//')) return true;
  if (!url.includes('.') && !url.includes('%')) return false;
  let path = url.split('?', 1)[0]!;
  try {
    path = decodeURIComponent(path);
  } catch {
    // One invalid escape (`%zz`) fails the whole decoding: the escapes of dots and separators are read
    // on their own then, or `/%zz/%2e%2e/%2e%2e/etc/passwd` would pass as it is.
    path = path.replace(/%2e/gi, '.').replace(/%2f/gi, '/').replace(/%5c/gi, '\\');
  }
  // A backslash is a separator to many servers (and to WHATWG URL parsing of special schemes).
  path = path.replaceAll('\\', '/');
  return path.includes('/../') || path.endsWith('/..');
}

export const statusLine = (answer: IncomingMessage) => `HTTP/1.1 ${answer.statusCode} ${answer.statusMessage ?? ''}\r\n`;

export function rawHeaderLines(raw: string[]): string {
  let lines = '';
  for (let index = 0; index < raw.length; index += 2) lines += `${raw[index]}: ${raw[index + 1]}\r\n`;
  return lines;
}

export function refuseUpgrade(socket: Duplex, status: number, text: string): void {
  if (socket.writable) socket.end(`HTTP/1.1 ${status} ${text}\r\nconnection: close\r\ncontent-length: 0\r\n\r\n`);
  else socket.destroy();
}

export function answerJson(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) }).end(text);
}

export function isTimeout(error: Error): boolean {
  return error instanceof errors.HeadersTimeoutError || error instanceof errors.BodyTimeoutError || error instanceof errors.ConnectTimeoutError;
}

/** The request's end-to-end headers as the upstream gets them: X-Forwarded-* added, Host the upstream's. */
export function upstreamRequestHeaders(request: IncomingMessage, upstreamHost: string): IncomingHttpHeaders {
  const headers = endToEnd(request.headers);
  const prior = headerValue(request.headers, 'x-forwarded-for');
  headers['x-forwarded-for'] = prior ? `${prior}, ${request.socket.remoteAddress ?? ''}` : (request.socket.remoteAddress ?? '');
  headers['x-forwarded-host'] = headerValue(request.headers, 'host') ?? '';
  headers['x-forwarded-proto'] = headerValue(request.headers, 'x-forwarded-proto') ?? 'http';
  headers['host'] = upstreamHost;
  // The request's body goes upstream as a stream, without its trailers: none are announced.
  delete headers['trailer'];
  return headers;
}
