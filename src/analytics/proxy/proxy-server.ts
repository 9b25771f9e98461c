/**
 * `quire proxy`: a reverse proxy in front of a docs site that records every request it forwards.
 * Forwarding is @fastify/reply-from over undici: any method, request and response bodies streamed,
 * headers kept (plus X-Forwarded-For, -Host and -Proto). Recording is one append to the recorder's
 * list once the upstream's status is known (recorder.ts); nothing about it can delay or fail a response.
 * An unreachable upstream is a 502 (504 when it timed out); the proxy never retries on its own.
 */
import replyFrom from '@fastify/reply-from';
import type { IncomingHttpHeaders } from 'node:http';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import type { ProxyRecorder } from './recorder.ts';

export interface ProxyOptions {
  upstream: string;
  recorder: ProxyRecorder;
  logger: Logger;
  /** Trust X-Forwarded-For from these addresses (Fastify's trustProxy), when another proxy sits in front. */
  trustProxy?: boolean | string;
  /** Upstream response timeout in milliseconds (default 60,000). */
  timeoutMilliseconds?: number;
}

/** Answered by the proxy itself, to local clients only; every other path goes upstream. */
export const statusPath = '/.quire/proxy-status';

/** Request headers a Web Bot Auth signature may cover, kept with the recorded request (at most 32). */
const signedHeaders = ['signature', 'signature-input', 'signature-agent', 'host', 'user-agent', 'accept', 'date', 'content-type', 'content-digest'];

const header = (request: FastifyRequest, name: string): string | undefined => {
  const value = request.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
};

function isLoopback(address: string): boolean {
  return address === '127.0.0.1' || address === '::1' || address === '::ffff:127.0.0.1';
}

function signatureHeaders(request: FastifyRequest): Record<string, string> | undefined {
  if (request.headers['signature'] === undefined) return undefined;
  const headers: Record<string, string> = {};
  for (const name of signedHeaders) {
    const value = header(request, name);
    if (value !== undefined) headers[name] = value;
  }
  return headers;
}

export async function createProxyServer(options: ProxyOptions): Promise<FastifyInstance> {
  const { recorder } = options;
  const app = Fastify({
    loggerInstance: options.logger as FastifyBaseLogger,
    logController: new LogController({ disableRequestLogging: true }),
    trustProxy: options.trustProxy ?? false,
    bodyLimit: Number.MAX_SAFE_INTEGER,
  });
  // Bodies are never parsed: they stream to the upstream as they arrive.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_request, payload, done) => done(null, payload));
  await app.register(replyFrom, {
    base: options.upstream,
    disableRequestLogging: true,
    undici: { connections: 128, pipelining: 1, keepAliveTimeout: 30_000 },
  });
  const forwarded = (request: FastifyRequest, headers: IncomingHttpHeaders): IncomingHttpHeaders => {
    const prior = header(request, 'x-forwarded-for');
    return {
      ...headers,
      'x-forwarded-for': prior ? `${prior}, ${request.socket.remoteAddress ?? ''}` : (request.socket.remoteAddress ?? ''),
      'x-forwarded-host': header(request, 'host') ?? '',
      'x-forwarded-proto': header(request, 'x-forwarded-proto') ?? request.protocol,
    };
  };
  app.all('/*', (request, reply) => {
    if (request.url === statusPath && isLoopback(request.socket.remoteAddress ?? '')) return reply.send(recorder.status());
    const started = Date.now();
    return reply.from(request.url, {
      rewriteRequestHeaders: (_request, headers) => forwarded(request, headers as IncomingHttpHeaders),
      // The client decides whether to retry, not the proxy.
      retryDelay: () => null,
      timeout: options.timeoutMilliseconds ?? 60_000,
      onResponse(_request, response, raw) {
        const upstream = raw as unknown as { statusCode: number; headers: IncomingHttpHeaders; stream: NodeJS.ReadableStream };
        recorder.record({
          method: request.method,
          path: request.url,
          at: started,
          status: upstream.statusCode,
          ip: request.ip,
          userAgent: header(request, 'user-agent'),
          referrer: header(request, 'referer'),
          accept: header(request, 'accept'),
          contentType: String(upstream.headers['content-type'] ?? '') || undefined,
          headers: signatureHeaders(request),
        });
        response.send(upstream.stream);
      },
      onError(response, { error }) {
        const timedOut = (error as { statusCode?: number }).statusCode === 504;
        const status = timedOut ? 504 : 502;
        recorder.record({ method: request.method, path: request.url, at: started, status, ip: request.ip, userAgent: header(request, 'user-agent') });
        options.logger.warn({ error: error.message, path: request.url }, 'upstream did not answer');
        void response
          .code(status)
          .type('application/json')
          .send({
            error: timedOut ? 'The upstream server did not answer in time; try again.' : 'The upstream server could not be reached; try again shortly.',
            code: timedOut ? 'gateway_timeout' : 'bad_gateway',
          });
      },
    });
  });
  return app;
}
