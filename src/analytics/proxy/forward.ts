/**
 * Forwarding one request through undici's connection pool: the request's body streamed upstream, the
 * answer streamed back with backpressure, the upstream's trailers relayed after the body where the
 * client's answer is chunked. The request is recorded once the upstream's status is known
 * (recording.ts). An unreachable upstream is a 502 (504 when it timed out); nothing is retried.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { Dispatcher, Pool } from 'undici';
import { answerJson, endToEnd, forwardedTrailers, isTimeout, upstreamRequestHeaders } from './messages.ts';
import type { ProxyRecorder } from './recorder.ts';
import { recordAnswered, recordUnanswered, type Arrival } from './recording.ts';
import { withLlmsLink } from './surface.ts';

export interface ForwardOptions {
  pool: Pool;
  origin: URL;
  recorder: ProxyRecorder;
  logger: Logger;
  /** The client address of a request (recording.ts `clientAddressOf`). */
  clientAddress: (request: IncomingMessage) => string;
}

/** What the site surface adds to a forwarded request (surface-router.ts). */
export interface ForwardExtras {
  /** The `link` header the upstream's HTML pages gain. */
  link?: string;
  /** Wraps the handler of the upstream's answer, so the surface can answer in its place (fallback.ts). */
  wrap?: (handler: Dispatcher.DispatchHandler, arrival: Arrival) => Dispatcher.DispatchHandler;
}

/** A function that forwards one request and answers it. */
export type Forward = (request: IncomingMessage, response: ServerResponse, extras?: ForwardExtras) => void;

export function createForwarder({ pool, origin, recorder, logger, clientAddress }: ForwardOptions): Forward {
  return function forward(request, response, extras) {
    const arrival = { path: request.url ?? '/', at: Date.now(), ip: clientAddress(request) };
    const headers = upstreamRequestHeaders(request, origin.host);
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
        recordAnswered(recorder, request, arrival, statusCode, upstreamHeaders);
        const headers = extras?.link ? withLlmsLink(endToEnd(upstreamHeaders), statusCode, extras.link) : endToEnd(upstreamHeaders);
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
        recordUnanswered(recorder, request, arrival, status);
        logger.warn({ error: error.message, path: arrival.path }, 'upstream did not answer');
        answerJson(response, status, {
          error: timedOut ? 'The upstream server did not answer in time; try again.' : 'The upstream server could not be reached; try again shortly.',
          code: timedOut ? 'gateway_timeout' : 'bad_gateway',
        });
      },
    };
    pool.dispatch(
      { origin: origin.origin, path: arrival.path, method: (request.method ?? 'GET') as Dispatcher.HttpMethod, headers, body: hasBody ? request : null },
      extras?.wrap ? extras.wrap(handler, arrival) : handler,
    );
  };
}
