/**
 * The proxy's recording hook: what it notes of a forwarded request once the upstream's status is
 * known, as one append to the recorder's list (recorder.ts). Nothing here can delay or fail a response.
 */
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { headerValue, signatureHeaders } from '../capture/signature-headers.ts';
import { addressRanges, inRanges, plainAddress } from '../../lib/ip-ranges.ts';
import { mcpUserAgent, type McpClient } from '../ingest/agent-identity.ts';
import type { ProxyRecorder } from './recorder.ts';

/** A forwarded request as it arrived: its target, when, and from which client address. */
export interface Arrival {
  path: string;
  at: number;
  ip: string;
}

/**
 * How the proxy reads a request's client address. Without `trustProxy`, the connection's peer. With it
 * (another proxy sits in front), X-Forwarded-For read from its end: the last hop is the address the proxy
 * in front appended for the peer it saw (nginx's `$proxy_add_x_forwarded_for`, load balancers and CDNs
 * append); hops in `trustedProxies` (QUIRE_TRUSTED_PROXIES: a CDN's edges in front of a load balancer)
 * are passed over to the one before. Anything further left was written by the client, who may name any
 * address it likes to be seen from (a crawler's published one, say), and is not read.
 */
export function clientAddressOf(trustProxy: boolean, trustedProxies: string[] = []): (request: IncomingMessage) => string {
  const peer = (request: IncomingMessage) => request.socket.remoteAddress ?? '';
  if (!trustProxy) return peer;
  const trusted = addressRanges(trustedProxies);
  return (request) => {
    const hops = headerValue(request.headers, 'x-forwarded-for')?.split(',') ?? [];
    let address: string | undefined;
    for (let index = hops.length - 1; index >= 0; index--) {
      const hop = plainAddress(hops[index].trim());
      // A hop that is not an address means the chain cannot be read any further.
      if (hop === undefined) break;
      address = hop;
      if (!inRanges(trusted, hop)) break;
    }
    return address ?? peer(request);
  };
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

/** Notes a request the site surface answered: a view of the page or file it served (its `viewPath`). */
export function recordSurface(
  recorder: ProxyRecorder,
  request: IncomingMessage,
  arrival: Arrival,
  answer: { status: number; headers: Record<string, string>; viewPath: string },
): void {
  recordAnswered(recorder, request, { ...arrival, path: answer.viewPath }, answer.status, answer.headers);
}

/**
 * Notes a page an MCP tool returned, as one view from the request's client: stored under a user
 * agent that names the MCP client when the request's own names no known agent (mcpUserAgent).
 */
export function recordMcpView(recorder: ProxyRecorder, request: IncomingMessage, ip: string, path: string, client: McpClient | undefined): void {
  recorder.record({
    method: 'GET',
    path,
    at: Date.now(),
    status: 200,
    ip,
    userAgent: mcpUserAgent(headerValue(request.headers, 'user-agent'), client),
    accept: headerValue(request.headers, 'accept'),
    headers: signatureHeaders(request.headers),
  });
}
