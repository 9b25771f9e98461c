/**
 * Processes of the capture benchmark: `upstream` serves one static HTML page (the docs site), `proxy`
 * runs `quire proxy` in front of UPSTREAM_URL for PROJECT_ID, `bare` the least a proxy on Node can do
 * in front of it (see below). Each prints one JSON line with its URL when ready.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { Pool } from 'undici';
import { loadConfig } from '../src/config/config.ts';
import { ProxyRecorder } from '../src/analytics/proxy/recorder.ts';
import { createProxyServer } from '../src/analytics/proxy/proxy-server.ts';
import { workerStore } from '../src/analytics/proxy/worker-store.ts';

const page = Buffer.from(`<!doctype html><title>Guide</title>${'<p>Some documentation text.</p>'.repeat(120)}`);

if (process.argv[2] === 'upstream') {
  const server = createServer((_request, response) =>
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-length': page.length }).end(page),
  );
  server.listen(0, '127.0.0.1', () => process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` })}\n`));
  process.on('SIGTERM', () => server.close(() => process.exit(0)));
} else if (process.argv[2] === 'bare') {
  // The least a proxy built on Node does: its HTTP server and undici's pool, as `quire proxy` uses them,
  // with nothing else: no request recorded, no header filtered, no error answered, no backpressure.
  const origin = new URL(process.env.UPSTREAM_URL!);
  const pool = new Pool(origin.origin, { connections: 128, pipelining: 1, keepAliveTimeout: 30_000 });
  const server = createServer((request, response) =>
    pool.dispatch(
      {
        origin: origin.origin,
        path: request.url ?? '/',
        method: 'GET',
        headers: { host: origin.host, 'x-forwarded-for': request.socket.remoteAddress ?? '' },
      },
      {
        // A handler with no onRequestStart is taken for the older kind (onConnect, onHeaders, …).
        onRequestStart: () => {},
        onResponseStart: (_controller, status, headers) => void response.writeHead(status, headers),
        onResponseData: (_controller, chunk) => void response.write(chunk),
        onResponseEnd: () => void response.end(),
        onResponseError: (_controller, error) => void response.destroy(error),
      },
    ),
  );
  server.listen(0, '127.0.0.1', () => process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` })}\n`));
  process.on('SIGTERM', () => server.close(() => process.exit(0)));
} else {
  const logger = pino({ level: loadConfig().logLevel });
  const writer = workerStore({ projectId: process.env.PROJECT_ID!, env: { ...process.env } }, logger);
  const recorder = new ProxyRecorder({ store: writer.store, logger });
  await writer.prepare();
  const app = await createProxyServer({ upstream: process.env.UPSTREAM_URL!, recorder, logger });
  await app.listen({ host: '127.0.0.1', port: 0 });
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}` })}\n`);
  process.on('SIGTERM', async () => {
    await app.close();
    const status = await recorder.close();
    await writer.close();
    process.stderr.write(`  proxy recorded ${status.recorded}, stored ${status.stored}, dropped ${status.dropped}\n`);
    process.exit(0);
  });
}
