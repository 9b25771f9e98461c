/**
 * The proxy's recording hook: what it notes of a forwarded request once the upstream's status is
 * known, as one append to the recorder's list (recorder.ts). Nothing here can delay or fail a response.
 */
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { headerValue, signatureHeaders } from '../capture/signature-headers.ts';
import type { ProxyRecorder } from './recorder.ts';

/** A forwarded request as it arrived: its target, when, and from which client address. */
export interface Arrival {
  path: string;
  at: number;
  ip: string;
}

/** The client's address: the first of X-Forwarded-For when another proxy in front is trusted, else the connection's. */
export function clientAddress(request: IncomingMessage, trustProxy: boolean): string {
  if (trustProxy) {
    const first = headerValue(request.headers, 'x-forwarded-for')?.split(',', 1)[0]?.trim();
    if (first) return first;
  }
  return request.socket.remoteAddress ?? '';
}

/** Notes a request the upstream answered with `status`, with what the capture rules and verification read. */
export function recordAnswered(
  recorder: ProxyRecorder,
  request: IncomingMessage,
  arrival: Arrival,
  status: number,
  upstreamHeaders: IncomingHttpHeaders,
): void {
  recorder.record({
    method: request.method ?? 'GET',
    path: arrival.path,
    at: arrival.at,
    status,
    ip: arrival.ip,
    userAgent: headerValue(request.headers, 'user-agent'),
    referrer: headerValue(request.headers, 'referer'),
    accept: headerValue(request.headers, 'accept'),
    contentType: headerValue(upstreamHeaders, 'content-type') || undefined,
    headers: signatureHeaders(request.headers),
  });
}

/** Notes a request the upstream did not answer, under the proxy's own status (502 or 504). */
export function recordUnanswered(recorder: ProxyRecorder, request: IncomingMessage, arrival: Arrival, status: number): void {
  recorder.record({
    method: request.method ?? 'GET',
    path: arrival.path,
    at: arrival.at,
    status,
    ip: arrival.ip,
    userAgent: headerValue(request.headers, 'user-agent'),
  });
}
