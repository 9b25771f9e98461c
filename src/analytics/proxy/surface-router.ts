/**
 * The proxy with the site surface (surface.ts): while the project's docs are public, `/mcp` is
 * answered by Quire, the surface's files are asked of the upstream first (fallback.ts) and answered
 * from the index when it has not them, and the upstream's HTML pages gain the llms.txt link. While
 * they are not, every request is forwarded as without a surface. Each request is recorded once: a
 * surface answer as a view of the page or file it served, anything else as forward.ts records it.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { withFallback } from './fallback.ts';
import type { Forward } from './forward.ts';
import { answerJson } from './messages.ts';
import type { ProxyRecorder } from './recorder.ts';
import { recordAnswered, recordMcpView, recordSurface, type Arrival } from './recording.ts';
import { decodedPath, mcpBodyLimit, surfaceKind, upstreamWins, type ProxySurface, type ServedSurface, type SurfaceFile } from './surface.ts';

interface RouterOptions {
  surface: ProxySurface;
  forward: Forward;
  recorder: ProxyRecorder;
  logger: Logger;
  /** The client address of a request (recording.ts `clientAddressOf`). */
  clientAddress: (request: IncomingMessage) => string;
}

const header = (value: string | string[] | undefined) => (Array.isArray(value) ? value.join(', ') : value);

/** Writes a surface file: its body for GET, only its headers (with the body's length) for HEAD. */
function serveFile(request: IncomingMessage, response: ServerResponse, file: SurfaceFile): void {
  if (response.destroyed) return;
  const body = typeof file.body === 'string' ? Buffer.from(file.body) : file.body;
  response.writeHead(file.status, { ...file.headers, 'content-length': body.length });
  response.end(request.method === 'HEAD' ? undefined : body);
}

/** The request's body, at most `mcpBodyLimit` bytes; null when it is larger. */
async function readBody(request: IncomingMessage): Promise<Buffer | null> {
  if (Number(request.headers['content-length'] ?? 0) > mcpBodyLimit) return null;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > mcpBodyLimit) return null;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

const parseError = { jsonrpc: '2.0', error: { code: -32700, message: 'Parse error: the body is not JSON.' }, id: null };

export function createSurfaceRouter({ surface, forward, recorder, logger, clientAddress }: RouterOptions) {
  async function answerMcp(request: IncomingMessage, response: ServerResponse, served: ServedSurface): Promise<void> {
    const arrival: Arrival = { path: request.url ?? '/', at: Date.now(), ip: clientAddress(request) };
    const body = request.method === 'POST' ? await readBody(request) : Buffer.alloc(0);
    if (body === null) {
      recordAnswered(recorder, request, arrival, 413, {});
      response.shouldKeepAlive = false;
      return answerJson(response, 413, { error: `An MCP request body is at most ${mcpBodyLimit} bytes.`, code: 'payload_too_large' });
    }
    let parsed: unknown;
    try {
      parsed = body.length > 0 ? JSON.parse(body.toString('utf8')) : undefined;
    } catch {
      recordAnswered(recorder, request, arrival, 400, {});
      return answerJson(response, 400, parseError);
    }
    const answer = await served.mcp({
      method: request.method ?? 'GET',
      url: arrival.path,
      headers: request.headers,
      body: parsed,
      ip: arrival.ip,
      pageRead: (path, client) => recordMcpView(recorder, request, arrival.ip, path, client),
    });
    recordAnswered(recorder, request, arrival, answer.status, answer.headers);
    response.writeHead(answer.status, { ...answer.headers, 'content-length': Buffer.byteLength(answer.body) }).end(answer.body);
  }

  function forwardFile(request: IncomingMessage, response: ServerResponse, served: ServedSurface, kind: 'file' | 'negotiated', path: string): void {
    const accept = header(request.headers.accept);
    const acceptEncoding = header(request.headers['accept-encoding']);
    const ifNoneMatch = header(request.headers['if-none-match']);
    forward(request, response, {
      link: served.link,
      wrap: (handler, arrival) =>
        withFallback(handler, {
          wins: (status, headers) => upstreamWins(kind, status, header(headers['content-type'])),
          answer: () => served.answer({ path, accept, acceptEncoding, ifNoneMatch }),
          serve(file) {
            recordSurface(recorder, request, arrival, file);
            serveFile(request, response, file);
          },
          failed: (error) => logger.warn({ err: error, path }, 'the site surface failed; the upstream answer is forwarded'),
        }),
    });
  }

  async function route(request: IncomingMessage, response: ServerResponse): Promise<void> {
    let served: ServedSurface | null = null;
    try {
      served = await surface.current();
    } catch (error) {
      logger.warn({ err: error }, 'reading the project failed; the request is forwarded without the site surface');
    }
    const path = decodedPath(request.url ?? '/');
    if (!served || path === null) return forward(request, response);
    const kind = surfaceKind(request.method, path, header(request.headers.accept));
    if (kind === 'mcp') return answerMcp(request, response, served);
    if (kind === 'page') return forward(request, response, { link: served.link });
    forwardFile(request, response, served, kind, path);
  }

  return (request: IncomingMessage, response: ServerResponse): void => {
    route(request, response).catch((error: unknown) => {
      logger.error({ err: error, path: request.url }, 'the site surface failed');
      if (!response.headersSent) answerJson(response, 500, { error: 'The site surface failed to answer; try again.', code: 'internal_error' });
      else response.destroy();
    });
  };
}
