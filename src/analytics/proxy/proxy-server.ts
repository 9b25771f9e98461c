/**
 * `quire proxy`: a reverse proxy in front of a docs site that records every request it forwards.
 * Forwarding is undici's connection pool driven from Node's own HTTP server, with nothing between
 * them: any method, request and response bodies streamed with backpressure, end-to-end headers kept
 * (plus X-Forwarded-For, -Host and -Proto), hop-by-hop headers dropped both ways (RFC 9110 §7.6.1),
 * the upstream's response trailers relayed after the body where the client's answer is chunked.
 * Recording is one append to the recorder's list once the upstream's status is known (recorder.ts);
 * nothing about it can delay or fail a response. An unreachable upstream is a 502 (504 when it timed
 * out); the proxy never retries on its own. Connection upgrades (WebSocket) are joined to the
 * upstream's byte for byte (`upgrade` below).
 *
 * Why not a framework here: on two cores the proxy shares the CPU with the site it fronts, and every
 * microsecond it spends per request is throughput lost. A framework's routing, hooks and reply
 * objects cost about half of the proxy's time per request (docs/analytics.md gives the figures).
 */
import { createServer, request as httpRequest, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import { Pool, errors, type Dispatcher } from 'undici';
import type { ProxyRecorder } from './recorder.ts';

export interface ProxyOptions {
  upstream: string;
  recorder: ProxyRecorder;
  logger: Logger;
  /** Take the client address from X-Forwarded-For (its first address), when another proxy sits in front. */
  trustProxy?: boolean;
  /** Upstream response timeout in milliseconds (default 60,000). */
  timeoutMilliseconds?: number;
}

export interface ProxyServer {
  readonly server: Server;
  listen(address: { host: string; port: number }): Promise<void>;
  /** The addresses the proxy listens on, as `http://host:port` URLs. */
  addresses(): string[];
  /** Stops accepting connections, lets requests in flight finish, and closes the upstream pool. */
  close(): Promise<void>;
}

/** Answered by the proxy itself, to local clients only; every other path goes upstream. */
export const statusPath = '/.quire/proxy-status';

/** Request headers a Web Bot Auth signature may cover, kept with the recorded request. */
const signedHeaders = ['signature', 'signature-input', 'signature-agent', 'host', 'user-agent', 'accept', 'date', 'content-type', 'content-digest'];

/** Headers that describe one connection, not the message: never forwarded in either direction. */
const hopByHop = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'te', 'http2-settings', 'expect']);

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

const header = (headers: IncomingHttpHeaders, name: string): string | undefined => {
  const value = headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
};

function isLoopback(address: string | undefined): boolean {
  return address === '127.0.0.1' || address === '::1' || address === '::ffff:127.0.0.1';
}

/** Header names the Connection header lists: hop-by-hop for this one message. */
function connectionListed(headers: IncomingHttpHeaders): string[] {
  const value = header(headers, 'connection');
  if (value === undefined) return [];
  return value
    .toLowerCase()
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
}

/** The end-to-end headers of a message: its own, less the hop-by-hop ones. */
function endToEnd(headers: IncomingHttpHeaders): IncomingHttpHeaders {
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
function forwardedTrailers(trailers: IncomingHttpHeaders | undefined): Record<string, string | string[]> | undefined {
  let kept: Record<string, string | string[]> | undefined;
  for (const name in trailers) {
    const value = trailers[name];
    if (value === undefined || notTrailers.has(name)) continue;
    (kept ??= {})[name] = value;
  }
  return kept;
}

function signatureHeaders(headers: IncomingHttpHeaders): Record<string, string> | undefined {
  if (headers['signature'] === undefined) return undefined;
  const kept: Record<string, string> = {};
  for (const name of signedHeaders) {
    const value = header(headers, name);
    if (value !== undefined) kept[name] = value;
  }
  return kept;
}

/** A request target the proxy refuses to forward: not origin-form, or climbing out of the site's root. */
function unsafeTarget(url: string): boolean {
  if (url.charCodeAt(0) !== 47 /* '/' */ || url.startsWith('//')) return true;
  if (!url.includes('.') && !url.includes('%')) return false;
  let path = url.split('?', 1)[0]!;
  try {
    path = decodeURIComponent(path);
  } catch {
    // Kept as sent: the upstream decides what an invalid escape means.
  }
  return path.includes('/../') || path.endsWith('/..');
}

/** Why an upgraded connection is not a view, as the proxy's counters say. */
export const upgradeReason = 'connection upgrade, such as a WebSocket (not a page view)';

const statusLine = (answer: IncomingMessage) => `HTTP/1.1 ${answer.statusCode} ${answer.statusMessage ?? ''}\r\n`;

function rawHeaderLines(raw: string[]): string {
  let lines = '';
  for (let index = 0; index < raw.length; index += 2) lines += `${raw[index]}: ${raw[index + 1]}\r\n`;
  return lines;
}

function refuseUpgrade(socket: Duplex, status: number, text: string): void {
  if (socket.writable) socket.end(`HTTP/1.1 ${status} ${text}\r\nconnection: close\r\ncontent-length: 0\r\n\r\n`);
  else socket.destroy();
}

function answerJson(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) }).end(text);
}

function isTimeout(error: Error): boolean {
  return error instanceof errors.HeadersTimeoutError || error instanceof errors.BodyTimeoutError || error instanceof errors.ConnectTimeoutError;
}

export async function createProxyServer(options: ProxyOptions): Promise<ProxyServer> {
  const { recorder, logger } = options;
  const origin = new URL(options.upstream);
  const timeout = options.timeoutMilliseconds ?? 60_000;
  const pool = new Pool(origin.origin, { connections: 128, pipelining: 1, keepAliveTimeout: 30_000, headersTimeout: timeout, bodyTimeout: timeout });

  const clientAddress = (request: IncomingMessage): string => {
    if (options.trustProxy) {
      const first = header(request.headers, 'x-forwarded-for')?.split(',', 1)[0]?.trim();
      if (first) return first;
    }
    return request.socket.remoteAddress ?? '';
  };

  /** The request's end-to-end headers as the upstream gets them: X-Forwarded-* added, Host the upstream's. */
  const upstreamRequestHeaders = (request: IncomingMessage): IncomingHttpHeaders => {
    const headers = endToEnd(request.headers);
    const prior = header(request.headers, 'x-forwarded-for');
    headers['x-forwarded-for'] = prior ? `${prior}, ${request.socket.remoteAddress ?? ''}` : (request.socket.remoteAddress ?? '');
    headers['x-forwarded-host'] = header(request.headers, 'host') ?? '';
    headers['x-forwarded-proto'] = header(request.headers, 'x-forwarded-proto') ?? 'http';
    headers['host'] = origin.host;
    // The request's body goes upstream as a stream, without its trailers: none are announced.
    delete headers['trailer'];
    return headers;
  };

  function forward(request: IncomingMessage, response: ServerResponse): void {
    const started = Date.now();
    const ip = clientAddress(request);
    const path = request.url ?? '/';
    const headers = upstreamRequestHeaders(request);
    const hasBody =
      request.headers['content-length'] !== undefined ? request.headers['content-length'] !== '0' : request.headers['transfer-encoding'] !== undefined;

    let controller: Dispatcher.DispatchController | undefined;
    let finished = false;
    /** The answer goes to the client in chunks, so the upstream's trailers can follow it. */
    let chunked = false;
    response.once('close', () => {
      // The client went away before the answer was complete: stop the upstream request too.
      if (!finished && controller && !controller.aborted) controller.abort(new Error('the client closed the connection'));
    });
    const handler: Dispatcher.DispatchHandler = {
      onRequestStart(requestController) {
        controller = requestController;
      },
      onResponseStart(_controller, statusCode, upstreamHeaders) {
        // 1xx answers (other than the final one) are the proxy's own business with each side.
        if (statusCode < 200) return;
        recorder.record({
          method: request.method ?? 'GET',
          path,
          at: started,
          status: statusCode,
          ip,
          userAgent: header(request.headers, 'user-agent'),
          referrer: header(request.headers, 'referer'),
          accept: header(request.headers, 'accept'),
          contentType: header(upstreamHeaders, 'content-type') || undefined,
          headers: signatureHeaders(request.headers),
        });
        const headers = endToEnd(upstreamHeaders);
        // Trailers need a chunked answer: announced only where the client gets one (Node refuses the
        // Trailer field otherwise), and sent after the body by onResponseEnd.
        chunked =
          response.useChunkedEncodingByDefault &&
          headers['content-length'] === undefined &&
          request.method !== 'HEAD' &&
          statusCode !== 204 &&
          statusCode !== 304;
        if (!chunked) delete headers['trailer'];
        response.writeHead(statusCode, headers);
      },
      onResponseData(dataController, chunk) {
        if (!response.write(chunk)) {
          dataController.pause();
          response.once('drain', () => dataController.resume());
        }
      },
      onResponseEnd(_controller, upstreamTrailers) {
        finished = true;
        const trailers = chunked ? forwardedTrailers(upstreamTrailers) : undefined;
        if (trailers) response.addTrailers(trailers);
        response.end();
      },
      onResponseError(_controller, error) {
        finished = true;
        if (response.headersSent) {
          // Part of the answer went out: the client can only learn of the failure by the connection closing.
          response.destroy(error);
          return;
        }
        const timedOut = isTimeout(error);
        const status = timedOut ? 504 : 502;
        recorder.record({ method: request.method ?? 'GET', path, at: started, status, ip, userAgent: header(request.headers, 'user-agent') });
        logger.warn({ error: error.message, path }, 'upstream did not answer');
        answerJson(response, status, {
          error: timedOut ? 'The upstream server did not answer in time; try again.' : 'The upstream server could not be reached; try again shortly.',
          code: timedOut ? 'gateway_timeout' : 'bad_gateway',
        });
      },
    };
    pool.dispatch(
      { origin: origin.origin, path, method: (request.method ?? 'GET') as Dispatcher.HttpMethod, headers, body: hasBody ? request : null },
      handler,
    );
  }

  /**
   * A connection upgrade (WebSocket): the handshake goes upstream through Node's HTTP client, as
   * undici's pool hands over only complete responses. On 101 the two connections are joined byte for
   * byte; any other answer is relayed and the connection closed. An upgrade is not a page view: it is
   * counted under its reason, never stored.
   */
  const upgraded = new Set<Duplex>();
  function upgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void {
    const url = request.url ?? '/';
    socket.on('error', () => socket.destroy());
    if (unsafeTarget(url)) return refuseUpgrade(socket, 400, 'Bad Request');
    recorder.skip(upgradeReason);
    const headers = upstreamRequestHeaders(request);
    headers['connection'] = 'upgrade';
    headers['upgrade'] = request.headers['upgrade'];
    const outgoing = (origin.protocol === 'https:' ? httpsRequest : httpRequest)({
      hostname: origin.hostname,
      port: origin.port || undefined,
      path: url,
      method: request.method,
      headers,
      timeout,
    });
    socket.once('close', () => outgoing.destroy());
    // Joined connections are no HTTP exchange the server waits for at close: they are ended there.
    upgraded.add(socket);
    socket.once('close', () => upgraded.delete(socket));
    outgoing.on('upgrade', (answer, upstream, upstreamHead) => {
      upstream.setTimeout(0);
      upstream.on('error', () => socket.destroy());
      socket.on('error', () => upstream.destroy());
      socket.once('close', () => upstream.destroy());
      upstream.once('close', () => socket.destroy());
      socket.write(statusLine(answer) + rawHeaderLines(answer.rawHeaders) + '\r\n');
      if (upstreamHead.length > 0) socket.write(upstreamHead);
      if (head.length > 0) upstream.write(head);
      upstream.pipe(socket).pipe(upstream);
    });
    outgoing.on('response', (answer) => {
      // Refused: relay the answer with its body delimited by the connection's end.
      const kept: string[] = [];
      for (let index = 0; index < answer.rawHeaders.length; index += 2) {
        const name = answer.rawHeaders[index]!.toLowerCase();
        if (!hopByHop.has(name) && name !== 'content-length') kept.push(answer.rawHeaders[index]!, answer.rawHeaders[index + 1]!);
      }
      socket.write(statusLine(answer) + rawHeaderLines(kept) + 'connection: close\r\n\r\n');
      answer.pipe(socket);
    });
    outgoing.on('timeout', () => outgoing.destroy(new Error('the upstream did not answer the upgrade in time')));
    outgoing.on('error', (error) => {
      logger.warn({ error: error.message, path: url }, 'upstream did not answer an upgrade');
      refuseUpgrade(socket, 502, 'Bad Gateway');
    });
    outgoing.end();
  }

  const server = createServer((request, response) => {
    const url = request.url ?? '/';
    if (url === statusPath && isLoopback(request.socket.remoteAddress)) return answerJson(response, 200, recorder.status());
    if (unsafeTarget(url)) return answerJson(response, 400, { error: 'The request target must be a path on this site.', code: 'bad_request' });
    forward(request, response);
  });
  server.on('upgrade', upgrade);
  server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
    if (socket.writable && error.code !== 'ECONNRESET') socket.end('HTTP/1.1 400 Bad Request\r\nconnection: close\r\ncontent-length: 0\r\n\r\n');
    else socket.destroy();
  });

  return {
    server,
    listen: ({ host, port }) =>
      new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => {
          server.off('error', reject);
          resolve();
        });
      }),
    addresses() {
      const address = server.address() as AddressInfo | null;
      if (!address) return [];
      const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
      return [`http://${host}:${address.port}`];
    },
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
        for (const socket of upgraded) socket.destroy();
      });
      await pool.close();
    },
  };
}
