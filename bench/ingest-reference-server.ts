/**
 * The analytics benchmark's reference ingester: the least a Node ingester does that keeps what the design
 * asks of ingestion ("appends raw events durably, acknowledged only after commit", ARCHITECTURE.md) with
 * the parts Quire is built on (Node's HTTP server and node:sqlite). Each request's JSON body is parsed
 * whole, each event becomes one row of one table with one index (its day), and the request's transaction
 * is on disk (`synchronous = full`) before the answer. Nothing else: no validation, no classification,
 * no visitor ids or sets, no dimensions, no rate limit or key, raw addresses stored as sent. Its rate,
 * measured beside Quire's with the same client in the same run, tracks what this machine allows on a
 * given day. Prints one JSON line with its URL when ready; DATA_DIR names the database's directory.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { referenceStore } from './reference-store.ts';

interface Event {
  timestamp?: number;
  path?: string;
  visitorId?: string;
  ip?: string;
  userAgent?: string;
  referrer?: string;
}

const { database, insert } = referenceStore(join(process.env.DATA_DIR!, 'reference.db'), ['path', 'visitor', 'ip', 'user_agent', 'referrer']);

function store(events: Event[]): void {
  database.exec('begin');
  try {
    for (const event of events) {
      insert.run(event.timestamp ?? Date.now(), event.path ?? '/', event.visitorId ?? null, event.ip ?? null, event.userAgent ?? null, event.referrer ?? null);
    }
    database.exec('commit');
  } catch (error) {
    database.exec('rollback');
    throw error;
  }
}

const server = createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    try {
      const { events } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { events: Event[] };
      store(events);
      response.writeHead(202, { 'content-type': 'application/json' }).end(JSON.stringify({ accepted: events.length, rejected: 0, errors: [] }));
    } catch (error) {
      response.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ error: String(error) }));
    }
  });
});
server.keepAliveTimeout = 30_000;
server.listen(0, '127.0.0.1', () => process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` })}\n`));
process.on('SIGTERM', () =>
  server.close(() => {
    database.close();
    process.exit(0);
  }),
);
