/**
 * Processes of the capture benchmark: `upstream` serves one static HTML page (the docs site), `proxy`
 * runs `quire proxy` in front of UPSTREAM_URL for PROJECT_ID. Each prints one JSON line with its URL when ready.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
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
