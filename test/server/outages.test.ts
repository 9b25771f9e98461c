import type { IncomingMessage, ServerResponse } from 'node:http';
import { connect } from 'node:net';
import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPostgres } from '../../src/storage/postgres/connect.ts';
import type { Storage } from '../../src/storage/dialect.ts';
import { createTenant, testApp, testContext, type Tenant } from '../support/app.ts';
import { testDatabases } from '../support/storage.ts';

interface LogLine {
  level: number;
  msg: string;
  err?: { code?: string };
}

/** A client that gives up on an upload is nobody's outage: no error log, no 503. */
describe.each(testDatabases)('clients that abandon a request on $dialect', (database) => {
  let storage: Storage;
  let app: FastifyInstance;
  let tenant: Tenant;
  let port: number;
  const lines: LogLine[] = [];
  const statuses: number[] = [];

  beforeAll(async () => {
    storage = await database.open();
    // Debug level, so the line that notes a client hanging up is written too.
    const sink = new Writable({
      write(chunk, _encoding, done) {
        for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line) as LogLine);
        done();
      },
    });
    const context = { ...testContext(storage, { config: { logLevel: 'debug' } }), logger: pino({ level: 'debug' }, sink) };
    app = await testApp(context);
    // The status line each answer is written with, even to a connection that is already gone.
    app.server.prependListener('request', (_request: IncomingMessage, response: ServerResponse) => {
      const writeHead = response.writeHead.bind(response) as (status: number, ...rest: unknown[]) => ServerResponse;
      response.writeHead = ((status: number, ...rest: unknown[]) => {
        statuses.push(status);
        return writeHead(status, ...rest);
      }) as ServerResponse['writeHead'];
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    port = (app.server.address() as { port: number }).port;
    tenant = await createTenant(storage);
  });
  afterAll(async () => {
    await app.close();
    await storage.close();
  });

  /** Sends the headers and half of a JSON body to `path`, then destroys the connection. */
  async function abandonUpload(path: string): Promise<void> {
    const body = JSON.stringify({ events: Array.from({ length: 2000 }, (_, index) => ({ path: `/page-${index}` })) });
    const socket = connect(port, '127.0.0.1');
    await new Promise<void>((resolve) => socket.once('connect', resolve));
    socket.write(
      `POST ${path} HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: ${tenant.auth.authorization}\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n`,
    );
    socket.write(body.slice(0, body.length / 2));
    await new Promise((resolve) => setTimeout(resolve, 100));
    socket.destroy();
  }

  const closedEarly = () => lines.filter((line) => line.msg === 'client closed the connection before its request was read').length;

  /** Waits until the server has answered `count` requests. */
  async function settled(count: number): Promise<void> {
    for (let attempt = 0; attempt < 100 && statuses.length < count; attempt++) await new Promise((resolve) => setTimeout(resolve, 20));
  }

  it('logs no error and answers no 503 when the upload is cut off half-way', async () => {
    await abandonUpload(`/v1/analytics/${tenant.project.id}/events`);
    await abandonUpload(`/v2/agent/${tenant.project.id}/job`);
    await settled(2);
    expect(statuses).toHaveLength(2);
    expect(statuses).not.toContain(503);
    expect(lines.filter((line) => line.level >= 50)).toEqual([]);
    expect(closedEarly()).toBe(2);
    const stored = await storage.db.selectFrom('analytics_events').select('path_id').execute();
    expect(stored).toEqual([]);
  });
});

describe('a database that cannot be reached', () => {
  it('answers 503 with Retry-After and logs the outage', async () => {
    const logged: LogLine[] = [];
    const sink = new Writable({
      write(chunk, _encoding, done) {
        for (const line of String(chunk).split('\n').filter(Boolean)) logged.push(JSON.parse(line) as LogLine);
        done();
      },
    });
    // Nothing listens on port 9 (discard) here: every connection attempt is refused.
    const storage = openPostgres({ connectionString: 'postgres://quire@127.0.0.1:9/quire', poolSize: 1, statementTimeoutMs: 0 });
    const app = await testApp({ ...testContext(storage), logger: pino({ level: 'info' }, sink) });
    try {
      const response = await app.inject({ method: 'GET', url: '/v2/agent/prj_x/jobs', headers: { authorization: `Bearer quire_${'a'.repeat(40)}` } });
      expect(response.statusCode).toBe(503);
      expect(response.headers['retry-after']).toBe('5');
      expect(response.json()).toMatchObject({ code: 'unavailable' });
      expect(logged.filter((line) => line.level >= 50)).toHaveLength(1);
    } finally {
      await app.close();
      await storage.close();
    }
  });
});
