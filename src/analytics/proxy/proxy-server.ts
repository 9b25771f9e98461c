/**
 * `quire proxy`: a reverse proxy in front of a docs site that records every request it forwards.
 * This is its surface: Node's own HTTP server, the status path, listening and closing. Forwarding is
 * undici's connection pool driven from that server with nothing between them (forward.ts): any
 * method, bodies streamed with backpressure, end-to-end headers kept (plus X-Forwarded-For, -Host and
 * -Proto), hop-by-hop headers dropped both ways (messages.ts). Recording is one append to the
 * recorder's list once the upstream's status is known (recording.ts, recorder.ts); nothing about it
 * can delay or fail a response. Connection upgrades (WebSocket) are joined to the upstream's byte for
 * byte (upgrade.ts). With a site surface, the surface's paths are routed first (surface-router.ts).
 *
 * Why not a framework here: on two cores the proxy shares the CPU with the site it fronts, and every
 * microsecond it spends per request is throughput lost. A framework's routing, hooks and reply
 * objects cost about half of the proxy's time per request (docs/analytics.md gives the figures).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { Pool } from 'undici';
import { createForwarder } from './forward.ts';
import { answerJson, isLoopback, unsafeTarget } from './messages.ts';
import type { ProxyRecorder } from './recorder.ts';
import { clientAddressOf } from './recording.ts';
import type { ProxySurface } from './surface.ts';
import { createSurfaceRouter } from './surface-router.ts';
import { createUpgrader } from './upgrade.ts';

export interface ProxyOptions {
  upstream: string;
  recorder: ProxyRecorder;
  logger: Logger;
  /** Take the client address from X-Forwarded-For, when another proxy sits in front (recording.ts `clientAddressOf`). */
  trustProxy?: boolean;
  /** Proxies in front of that one whose hops are passed over (QUIRE_TRUSTED_PROXIES). */
  trustedProxies?: string[];
  /** Upstream response timeout in milliseconds (default 60,000). */
  timeoutMilliseconds?: number;
  /** The site surface served at the site's root while the project's docs are public (surface-router.ts). */
  surface?: ProxySurface;
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

export async function createProxyServer(options: ProxyOptions): Promise<ProxyServer> {
  const { recorder, logger } = options;
  const origin = new URL(options.upstream);
  const timeout = options.timeoutMilliseconds ?? 60_000;
  const pool = new Pool(origin.origin, { connections: 128, pipelining: 1, keepAliveTimeout: 30_000, headersTimeout: timeout, bodyTimeout: timeout });
  const clientAddress = clientAddressOf(options.trustProxy ?? false, options.trustedProxies);
  const forward = createForwarder({ pool, origin, recorder, logger, clientAddress });
  const answer = options.surface ? createSurfaceRouter({ surface: options.surface, forward, recorder, logger, clientAddress }) : forward;
  const { upgrade, upgraded } = createUpgrader(origin, timeout, recorder, logger);

  const server = createServer((request, response) => {
    const url = request.url ?? '/';
    if (url === statusPath && isLoopback(request.socket.remoteAddress)) return answerJson(response, 200, recorder.status());
    if (unsafeTarget(url)) return answerJson(response, 400, { error: 'The request target must be a path on this site.', code: 'bad_request' });
    answer(request, response);
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
