/**
 * A connection upgrade (WebSocket): the handshake goes upstream through Node's HTTP client, as
 * undici's pool hands over only complete responses. On 101 the two connections are joined byte for
 * byte; any other answer is relayed and the connection closed. An upgrade is not a page view: it is
 * counted under its reason, never stored.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import { hopByHop, rawHeaderLines, refuseUpgrade, statusLine, unsafeTarget, upstreamRequestHeaders } from './messages.ts';
import type { ProxyRecorder } from './recorder.ts';

/** Why an upgraded connection is not a view, as the proxy's counters say. */
export const upgradeReason = 'connection upgrade, such as a WebSocket (not a page view)';

export interface Upgrader {
  upgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void;
  /** Joined connections: no HTTP exchange the server waits for at close, so they are ended there. */
  readonly upgraded: Set<Duplex>;
}

export function createUpgrader(origin: URL, timeout: number, recorder: ProxyRecorder, logger: Logger): Upgrader {
  const upgraded = new Set<Duplex>();
  function upgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void {
    const url = request.url ?? '/';
    socket.on('error', () => socket.destroy());
    if (unsafeTarget(url)) return refuseUpgrade(socket, 400, 'Bad Request');
    recorder.skip(upgradeReason);
    const headers = upstreamRequestHeaders(request, origin.host);
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
  return { upgrade, upgraded };
}
