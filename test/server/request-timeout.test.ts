import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Storage } from '../../src/storage/dialect.ts';
import { testApp, testContext } from '../support/app.ts';
import { testDatabases } from '../support/storage.ts';

/** A client that sends a request's body a byte at a time holds a socket only until QUIRE_REQUEST_TIMEOUT_SECONDS. */
describe('request timeout', () => {
  let storage: Storage;
  let app: FastifyInstance;

  beforeAll(async () => {
    storage = await testDatabases[0].open();
    app = await testApp(testContext(storage, { config: { requestTimeoutSeconds: 1 } }));
    await app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => {
    await app.close();
    await storage.close();
  });

  it('answers 408 and closes a connection whose body trickles in, once the limit has passed', async () => {
    const { port } = app.server.address() as AddressInfo;
    const socket = connect(port, '127.0.0.1');
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk));
    const closed = new Promise<number>((resolve) => socket.on('close', () => resolve(performance.now())));
    const started = performance.now();
    socket.write('POST /discovery/v1/search/prj_none HTTP/1.1\r\nHost: quire.test\r\nContent-Type: application/json\r\nContent-Length: 1000000\r\n\r\n{');
    // A byte every 200 ms: the connection is never idle, the request never complete.
    const trickle = setInterval(() => socket.writable && socket.write(' '), 200);
    try {
      const ended = await closed;
      expect(answer).toMatch(/^HTTP\/1\.1 408 /);
      expect(ended - started).toBeGreaterThanOrEqual(900);
    } finally {
      clearInterval(trickle);
      socket.destroy();
    }
  });
});
