import { once } from 'node:events';
import { createServer, request as httpRequest, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import { connect, createServer as createNetServer, type AddressInfo, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { sql } from 'kysely';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pathEscaped } from '../../src/analytics/capture/request-event.ts';
import { ProxyRecorder, type RecorderStatus, type RequestStore } from '../../src/analytics/proxy/recorder.ts';
import { batchRequests, RecordedBatch, type RecordedRequest } from '../../src/analytics/proxy/recorded-batch.ts';
import { createProxyServer, statusPath } from '../../src/analytics/proxy/proxy-server.ts';
import { upgradeReason } from '../../src/analytics/proxy/upgrade.ts';
import { workerStore } from '../../src/analytics/proxy/worker-store.ts';
import type { Storage } from '../../src/storage/dialect.ts';
import { Verification } from '../../src/analytics/model/verification.ts';
import { createTenant } from '../support/app.ts';
import { testDatabases, type TestLocation } from '../support/storage.ts';
import { directoryServer, ed25519Key, path as signedPath, signedHeaders } from '../support/web-bot-auth.ts';

const chrome = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';
const downloadBytes = 8 * 1024 * 1024;

/** The docs site: pages, an asset, an upload that counts what it received, a large streamed download; it remembers request headers. */
async function startUpstream() {
  const seen: IncomingHttpHeaders[] = [];
  /** Responses of /endless that ended, by how: 'finished' or 'closed' (the proxy let go of the request). */
  const endless: string[] = [];
  const server = createServer((request, response) => {
    seen.push(request.headers);
    if (request.url === '/hang') return;
    if (request.url === '/endless') {
      response.writeHead(200, { 'content-type': 'text/html' });
      const timer = setInterval(() => response.write('<p>more</p>'), 10);
      response.once('close', () => {
        clearInterval(timer);
        endless.push(response.writableFinished ? 'finished' : 'closed');
      });
      return;
    }
    if (request.url === '/upload') {
      let bytes = 0;
      request.on('data', (chunk: Buffer) => (bytes += chunk.length));
      request.on('end', () => response.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify({ bytes })));
      return;
    }
    if (request.url === '/download') {
      response.writeHead(200, { 'content-type': 'application/octet-stream' });
      let sent = 0;
      const write = () => {
        while (sent < downloadBytes) {
          sent += 64 * 1024;
          if (!response.write(Buffer.alloc(64 * 1024, 7))) return void response.once('drain', write);
        }
        response.end();
      };
      return write();
    }
    if (request.url === '/cookies') {
      return response
        .writeHead(200, [
          ['set-cookie', 'a=1'],
          ['set-cookie', 'b=2'],
          ['content-type', 'text/html'],
          ['content-length', '5'],
        ])
        .end('hello');
    }
    if (request.url === '/hop') {
      return response.writeHead(200, { connection: 'x-upstream-private', 'x-upstream-private': 'secret', 'x-kept': 'yes' }).end('hop');
    }
    if (request.url === '/trailers') {
      // A chunked answer whose checksum follows the body, with a field no trailer may carry.
      response.writeHead(200, { 'content-type': 'text/plain', trailer: 'x-checksum' });
      response.write('part one, ');
      response.addTrailers({ 'x-checksum': 'sha-256=abc', 'content-type': 'text/html' });
      return response.end('part two');
    }
    if (request.url === '/app.js') return response.writeHead(200, { 'content-type': 'text/javascript' }).end('console.log(1)');
    response.writeHead(request.url === '/missing' ? 404 : 200, { 'content-type': 'text/html; charset=utf-8' }).end(`<h1>${request.url}</h1>`);
  });
  // Upgrades: /refuse-upgrade is answered 403; anything else switches to a protocol that echoes every byte.
  server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    seen.push(request.headers);
    if (request.url === '/refuse-upgrade') return void socket.end('HTTP/1.1 403 Forbidden\r\ncontent-type: text/plain\r\ncontent-length: 4\r\n\r\nnope');
    socket.write(`HTTP/1.1 101 Switching Protocols\r\nupgrade: ${request.headers.upgrade}\r\nconnection: Upgrade\r\nx-upstream: yes\r\n\r\n`);
    if (head.length > 0) socket.write(head);
    socket.pipe(socket);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { server, seen, endless, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

function fetchRaw(url: string, options: { method?: string; headers?: Record<string, string>; body?: Iterable<Buffer>; path?: string } = {}) {
  return new Promise<{ status: number; body: Buffer; headers: IncomingHttpHeaders; trailers: NodeJS.Dict<string> }>((resolve, reject) => {
    const target = new URL(url);
    const requestOptions = { host: target.hostname, port: target.port, path: options.path ?? `${target.pathname}${target.search}` };
    const outgoing = httpRequest({ ...requestOptions, method: options.method ?? 'GET', headers: options.headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode!, body: Buffer.concat(chunks), headers: response.headers, trailers: response.trailers }));
    });
    outgoing.on('error', reject);
    for (const chunk of options.body ?? []) outgoing.write(chunk);
    outgoing.end();
  });
}

/**
 * A TCP relay to `target`'s host and port, on a port of its own: `url` is `target` through it. `shut()`
 * closes every connection and refuses new ones (a database that went away); `open()` listens again
 * on the same port.
 */
async function tcpRelay(target: URL) {
  const sockets = new Set<Socket>();
  const server = createNetServer((client) => {
    const database = connect(Number(target.port || 5432), target.hostname);
    for (const socket of [client, database]) {
      sockets.add(socket);
      socket.on('error', () => undefined);
      socket.on('close', () => sockets.delete(socket));
    }
    client.pipe(database).pipe(client);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as AddressInfo).port;
  const url = new URL(target);
  url.host = `127.0.0.1:${port}`;
  return {
    url: url.toString(),
    async shut() {
      for (const socket of sockets) socket.destroy();
      if (server.listening) await new Promise((resolve) => server.close(resolve));
    },
    async open() {
      server.listen(port, '127.0.0.1');
      await once(server, 'listening');
    },
  };
}

async function until(condition: () => boolean | Promise<boolean>): Promise<void> {
  while (!(await condition())) await new Promise((resolve) => setTimeout(resolve, 20));
}

describe('the proxy recorder', () => {
  it('hands a batch to the recording thread with every field and key as recorded, each distinct string once', () => {
    const requests: RecordedRequest[] = [
      {
        method: 'GET',
        path: '/guides/setup',
        at: 1_700_000_000_123,
        status: 200,
        ip: '203.0.113.9',
        userAgent: chrome,
        accept: 'text/html',
        contentType: 'text/html',
      },
      { method: 'HEAD', path: '/guides/setup', at: 1_700_000_000_456, status: 304, ip: '203.0.113.9', userAgent: chrome, referrer: 'https://example.com/' },
      { method: 'GET', path: '/', at: 1_700_000_000_789, ip: '2001:db8::1', headers: { signature: 'sig1=:abc:', 'signature-input': 'sig1=()' } },
    ];
    const batch = new RecordedBatch(5, 'pxtest', 40);
    for (const request of requests) batch.add(request);
    expect(batch.length).toBe(3);
    expect(batch.full).toBe(false);
    const message = structuredClone(batch.message());
    expect(message.strings.filter((text) => text === '/guides/setup' || text === chrome)).toHaveLength(2);
    const read = batchRequests(message);
    expect(read.map(({ key }) => key)).toEqual(['pxtest0000000014', 'pxtest0000000015', 'pxtest0000000016']);
    for (const [index, { request }] of read.entries()) {
      const defined = Object.fromEntries(Object.entries(request).filter(([, value]) => value !== undefined));
      expect(defined).toEqual(requests[index]);
    }
  });

  it('writes what arrived during a write as its own batch after the flush time, not at once in a batch of a few', async () => {
    const batches: { size: number; at: number }[] = [];
    let finishWrite: (() => void) | undefined;
    const store: RequestStore = async (batch) => {
      batches.push({ size: batch.length, at: performance.now() });
      await new Promise<void>((resolve) => (finishWrite = resolve));
      return { stored: batch.length, duplicates: 0, reasons: {}, notes: {} };
    };
    const recorder = new ProxyRecorder({ store, logger: pino({ level: 'silent' }), flushMilliseconds: 300, batchSize: 1000 });
    const view = { method: 'GET', path: '/guides/setup', at: Date.now(), status: 200 };
    recorder.record(view);
    await until(() => batches.length === 1);
    for (let index = 0; index < 5; index++) recorder.record(view);
    const written = performance.now();
    finishWrite!();
    await until(() => batches.length === 2);
    expect(batches.map((batch) => batch.size)).toEqual([1, 5]);
    expect(batches[1]!.at - written).toBeGreaterThanOrEqual(250);
    finishWrite!();
    expect(await recorder.close(1000)).toMatchObject({ recorded: 6, stored: 6, dropped: 0, buffered: 0 });
  });
});

describe.each(testDatabases)('quire proxy on $dialect', (database) => {
  let storage: Storage & { location: TestLocation };
  let upstream: Awaited<ReturnType<typeof startUpstream>>;
  beforeAll(async () => {
    storage = await database.open();
    upstream = await startUpstream();
  });
  afterAll(async () => {
    upstream.server.close();
    await storage.close();
  });

  async function startProxy(
    options: {
      upstream?: string;
      maxBuffered?: number;
      timeoutMilliseconds?: number;
      trustProxy?: boolean;
      trustedProxies?: string[];
      env?: Record<string, string>;
      /** Collects what the proxy logs (warnings and above), one JSON line each. */
      log?: string[];
      /** The project's settings (its asset rule). */
      project?: { skipAssets: boolean };
    } = {},
  ) {
    const tenant = await createTenant(storage, { project: options.project });
    const log = options.log;
    const logger = log ? pino({ level: 'info' }, { write: (line: string) => void log.push(line) }) : pino({ level: 'silent' });
    const writer = workerStore({ projectId: tenant.project.id, env: { ...process.env, ...storage.location.env, ...options.env } }, logger);
    const recorder = new ProxyRecorder({ store: writer.store, logger, flushMilliseconds: 20, retryMilliseconds: 50, maxBuffered: options.maxBuffered });
    // As `quire proxy` does: the recording thread is started before the proxy listens.
    await writer.prepare();
    const app = await createProxyServer({
      upstream: options.upstream ?? upstream.url,
      recorder,
      logger,
      timeoutMilliseconds: options.timeoutMilliseconds,
      trustProxy: options.trustProxy,
      trustedProxies: options.trustedProxies,
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    const status = async () => JSON.parse((await fetchRaw(`${url}${statusPath}`)).body.toString()) as RecorderStatus;
    const storedEvents = async () => {
      const key = (await storage.db.selectFrom('analytics_projects').select('project_key').where('project_id', '=', tenant.project.id).executeTakeFirst())
        ?.project_key;
      if (key === undefined) return 0;
      const row = await storage.db
        .selectFrom('analytics_events')
        .select((eb) => eb.fn.countAll<number>().as('count'))
        .where('project_key', '=', key)
        .executeTakeFirstOrThrow();
      return Number(row.count);
    };
    /** The stored views, with the fields each was recorded with (the client IP only as the visitor it identifies). */
    const storedRows = async () =>
      storage.db
        .selectFrom('analytics_events as e')
        .innerJoin('analytics_projects as p', 'p.project_key', 'e.project_key')
        .innerJoin('analytics_paths as path', (join) => join.onRef('path.project_key', '=', 'e.project_key').onRef('path.path_id', '=', 'e.path_id'))
        .innerJoin('analytics_agents as agent', 'agent.agent_id', 'e.agent_id')
        .select(['path.path', 'agent.user_agent as userAgent', 'e.status', 'e.referrer', 'e.markdown', 'e.verification', 'e.visitor_id as visitor'])
        .where('p.project_id', '=', tenant.project.id)
        .orderBy('e.at')
        .execute();
    return {
      url,
      recorder,
      status,
      storedEvents,
      storedRows,
      stop: async () => {
        await app.close();
        const final = await recorder.close(2_000);
        await writer.close();
        return final;
      },
    };
  }

  it('forwards requests with their headers plus X-Forwarded-*, and records page views but not assets', async () => {
    const proxy = await startProxy();
    const page = await fetchRaw(`${proxy.url}/guides/setup?ref=nav`, {
      headers: { 'user-agent': chrome, 'x-custom': 'kept', referer: 'https://example.com/' },
    });
    expect(page.status).toBe(200);
    expect(page.body.toString()).toBe('<h1>/guides/setup?ref=nav</h1>');
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    const sent = upstream.seen.at(-1)!;
    expect(sent).toMatchObject({ 'x-custom': 'kept', 'user-agent': chrome, 'x-forwarded-for': '127.0.0.1', 'x-forwarded-proto': 'http' });
    expect(sent['x-forwarded-host']).toBe(new URL(proxy.url).host);
    expect((await fetchRaw(`${proxy.url}/app.js`, { headers: { 'user-agent': chrome } })).status).toBe(200);
    expect((await fetchRaw(`${proxy.url}/missing`, { headers: { 'user-agent': chrome } })).status).toBe(404);
    // Not valid percent-encoding: forwarded as sent, stored under an escaped path, and noted.
    expect((await fetchRaw(`${proxy.url}/guides/100%zz`, { headers: { 'user-agent': chrome } })).status).toBe(200);
    await until(async () => (await proxy.status()).buffered === 0 && (await proxy.status()).recorded === 4);
    expect(await proxy.status()).toMatchObject({
      recorded: 4,
      stored: 3,
      skipped: { 'static asset (not a page view)': 1 },
      notes: { [pathEscaped]: 1 },
      dropped: 0,
    });
    expect(await proxy.storedEvents()).toBe(3);
    await proxy.stop();
  });

  it('records what a view needs: path, status, user agent, referrer, client IP, a Markdown Accept, and a Web Bot Auth signature it verifies', async () => {
    const bot = ed25519Key();
    const directory = await directoryServer(() => [bot.publicJwk]);
    // Key directories on 127.0.0.1 are fetched only with this setting: the proxy's writer reads it as the server does.
    const proxy = await startProxy({ trustProxy: true, env: { QUIRE_WEB_BOT_AUTH_ALLOW_PRIVATE: 'true' } });
    try {
      const send = (target: string, headers: Record<string, string>) => fetchRaw(`${proxy.url}${target}`, { headers });
      const reader = { 'user-agent': chrome, 'x-forwarded-for': '198.51.100.1', referer: 'https://search.example/?q=setup' };
      expect((await send('/guides/setup', reader)).status).toBe(200);
      expect((await send('/missing', reader)).status).toBe(404);
      expect((await send('/guides/setup', { ...reader, 'x-forwarded-for': '198.51.100.2', referer: '-' })).status).toBe(200);
      const signed = await signedHeaders(bot.privateJwk, directory.origin);
      expect((await send(signedPath, { ...signed, 'user-agent': 'ExampleBot/1.0', accept: 'text/markdown', 'x-forwarded-for': '198.51.100.3' })).status).toBe(
        200,
      );
      await until(async () => (await proxy.status()).stored === 4);
      const rows = await proxy.storedRows();
      expect(rows.map(({ visitor: _visitor, ...row }) => row)).toEqual([
        { path: '/guides/setup', userAgent: chrome, status: 200, referrer: reader.referer, markdown: 0, verification: Verification.unknown },
        { path: '/missing', userAgent: chrome, status: 404, referrer: reader.referer, markdown: 0, verification: Verification.unknown },
        { path: '/guides/setup', userAgent: chrome, status: 200, referrer: null, markdown: 0, verification: Verification.unknown },
        { path: signedPath, userAgent: 'ExampleBot/1.0', status: 200, referrer: null, markdown: 1, verification: Verification.verified },
      ]);
      // The same address and agent are one visitor; another address is another.
      const visitors = rows.map((row) => Number(row.visitor));
      expect(visitors[1]).toBe(visitors[0]);
      expect(new Set(visitors).size).toBe(3);
      expect(directory.requests).toBe(1);
    } finally {
      await proxy.stop();
      await directory.close();
    }
  });

  it('takes the client address behind a trusted proxy from the hop that proxy appended, not one the client wrote', async () => {
    const proxy = await startProxy({ trustProxy: true });
    try {
      // A client claims GPTBot's user agent and one of OpenAI's published addresses; the proxy in front appends the real one.
      const gptBot = 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)';
      const headers = { 'user-agent': gptBot, 'x-forwarded-for': '20.171.206.4, 198.51.100.9' };
      expect((await fetchRaw(`${proxy.url}/guides/setup`, { headers })).status).toBe(200);
      await until(async () => (await proxy.status()).stored === 1);
      expect((await proxy.storedRows()).map((row) => row.verification)).toEqual([Verification.spoofed]);
    } finally {
      await proxy.stop();
    }
  });

  it('passes over the hops of proxies listed in QUIRE_TRUSTED_PROXIES (a CDN in front of the load balancer), and no further', async () => {
    const proxy = await startProxy({ trustProxy: true, trustedProxies: ['198.51.100.0/24'] });
    try {
      const gptBot = 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)';
      // The client wrote 192.0.2.1; the CDN appended GPTBot's own address; the load balancer the CDN's edge.
      const send = (forwarded: string) => fetchRaw(`${proxy.url}/guides/setup`, { headers: { 'user-agent': gptBot, 'x-forwarded-for': forwarded } });
      expect((await send('192.0.2.1, 20.171.206.4, 198.51.100.9')).status).toBe(200);
      // A client that writes GPTBot's address itself, behind the same CDN, is seen from where it is.
      expect((await send('20.171.206.4, 192.0.2.1, 198.51.100.9')).status).toBe(200);
      await until(async () => (await proxy.status()).stored === 2);
      expect((await proxy.storedRows()).map((row) => row.verification)).toEqual([Verification.verified, Verification.spoofed]);
    } finally {
      await proxy.stop();
    }
  });

  it('records asset requests as views for a project whose asset rule is off', async () => {
    const proxy = await startProxy({ project: { skipAssets: false } });
    try {
      expect((await fetchRaw(`${proxy.url}/app.js`, { headers: { 'user-agent': chrome } })).status).toBe(200);
      expect((await fetchRaw(`${proxy.url}/guides/setup`, { headers: { 'user-agent': chrome } })).status).toBe(200);
      await until(async () => (await proxy.status()).stored === 2);
      expect(await proxy.status()).toMatchObject({ recorded: 2, stored: 2, skipped: {} });
    } finally {
      await proxy.stop();
    }
  });

  it('drops hop-by-hop headers both ways and refuses targets outside the site', async () => {
    const proxy = await startProxy();
    const before = upstream.seen.length;
    const answer = await fetchRaw(`${proxy.url}/hop`, { headers: { connection: 'x-client-private', 'x-client-private': '1', 'x-end-to-end': '2' } });
    expect(answer.body.toString()).toBe('hop');
    expect(answer.headers['x-kept']).toBe('yes');
    expect(answer.headers['x-upstream-private']).toBeUndefined();
    const sent = upstream.seen.at(-1)!;
    expect(sent['x-end-to-end']).toBe('2');
    expect(sent['x-client-private']).toBeUndefined();
    expect(sent.host).toBe(new URL(upstream.url).host);
    for (const target of [
      '/docs/%2e%2e/%2e%2e/etc/passwd',
      '/docs/../../etc/passwd',
      '/%zz/%2e%2e/%2e%2e/etc/passwd',
      '/docs/..%5c..%5cetc/passwd',
      '/docs/..\\..\\etc/passwd',
      'http://other.example/',
      '//other.example/x',
    ]) {
      const refused = await fetchRaw(`${proxy.url}/`, { path: target });
      expect(refused.status, target).toBe(400);
      expect(JSON.parse(refused.body.toString())).toMatchObject({ code: 'bad_request' });
    }
    expect(upstream.seen.length).toBe(before + 1);
    // Repeated response headers stay repeated; HEAD answers headers only.
    const cookies = await fetchRaw(`${proxy.url}/cookies`);
    expect(cookies.headers['set-cookie']).toEqual(['a=1', 'b=2']);
    const head = await fetchRaw(`${proxy.url}/cookies`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers['content-length']).toBe('5');
    expect(head.body.length).toBe(0);
    await proxy.stop();
  });

  it('relays the upstream trailers after a chunked body, and leaves them out where the client cannot take them', async () => {
    const proxy = await startProxy();
    const answer = await fetchRaw(`${proxy.url}/trailers`, { headers: { te: 'trailers' } });
    expect(answer.body.toString()).toBe('part one, part two');
    expect(answer.headers['trailer']).toBe('x-checksum');
    expect(answer.trailers).toEqual({ 'x-checksum': 'sha-256=abc' });
    expect(upstream.seen.at(-1)).toMatchObject({ te: 'trailers' });
    // Request trailers are not forwarded, so none are announced upstream.
    const upload = await fetchRaw(`${proxy.url}/upload`, {
      method: 'PUT',
      headers: { 'transfer-encoding': 'chunked', trailer: 'x-request-sum' },
      body: [Buffer.from('body')],
    });
    expect(JSON.parse(upload.body.toString())).toEqual({ bytes: 4 });
    expect(upstream.seen.at(-1)!['trailer']).toBeUndefined();
    // An HTTP/1.0 client gets the body delimited by the connection's close: no Trailer field, no trailers.
    const target = new URL(proxy.url);
    const socket = connect(Number(target.port), target.hostname);
    socket.write('GET /trailers HTTP/1.0\r\nhost: docs.example\r\n\r\n');
    let raw = '';
    for await (const chunk of socket) raw += (chunk as Buffer).toString();
    const [head, body] = raw.split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 200 /);
    expect(head.toLowerCase()).not.toContain('trailer');
    expect(body).toBe('part one, part two');
    await proxy.stop();
  });

  it('joins an upgraded connection (WebSocket) to the upstream both ways, relays a refused upgrade, and counts neither as a view', async () => {
    const proxy = await startProxy();
    const upgrade = (path: string) =>
      new Promise<{ status: number; headers: IncomingHttpHeaders; socket?: Socket; body?: string }>((resolve, reject) => {
        const target = new URL(proxy.url);
        const outgoing = httpRequest({ host: target.hostname, port: target.port, path, headers: { connection: 'Upgrade', upgrade: 'echo-test' } });
        outgoing.on('upgrade', (answer, socket) => resolve({ status: answer.statusCode!, headers: answer.headers, socket }));
        outgoing.on('response', (answer) => {
          let body = '';
          answer.on('data', (chunk: Buffer) => (body += chunk.toString()));
          answer.on('end', () => resolve({ status: answer.statusCode!, headers: answer.headers, body }));
        });
        outgoing.on('error', reject);
        outgoing.end();
      });
    const joined = await upgrade('/live');
    expect(joined.status).toBe(101);
    expect(joined.headers).toMatchObject({ upgrade: 'echo-test', 'x-upstream': 'yes' });
    expect(upstream.seen.at(-1)).toMatchObject({ upgrade: 'echo-test', 'x-forwarded-for': '127.0.0.1' });
    joined.socket!.write('ping');
    const [echoed] = (await once(joined.socket!, 'data')) as [Buffer];
    expect(echoed.toString()).toBe('ping');
    joined.socket!.destroy();
    const refused = await upgrade('/refuse-upgrade');
    expect(refused).toMatchObject({ status: 403, body: 'nope' });
    expect((await upgrade('/../../etc')).status).toBe(400);
    await until(async () => (await proxy.status()).recorded === 2);
    expect(await proxy.status()).toMatchObject({ recorded: 2, stored: 0, skipped: { [upgradeReason]: 2 } });
    await proxy.stop();
  });

  it('streams request and response bodies', async () => {
    const proxy = await startProxy();
    const chunks = Array.from({ length: 64 }, () => Buffer.alloc(128 * 1024, 1));
    const upload = await fetchRaw(`${proxy.url}/upload`, { method: 'POST', headers: { 'content-type': 'application/octet-stream' }, body: chunks });
    expect(upload.status).toBe(201);
    expect(JSON.parse(upload.body.toString())).toEqual({ bytes: 64 * 128 * 1024 });
    const chunked = await fetchRaw(`${proxy.url}/upload`, { method: 'PUT', headers: { 'transfer-encoding': 'chunked' }, body: chunks.slice(0, 3) });
    expect(JSON.parse(chunked.body.toString())).toEqual({ bytes: 3 * 128 * 1024 });
    const download = await fetchRaw(`${proxy.url}/download`);
    expect(download.body.length).toBe(downloadBytes);
    await proxy.stop();
  });

  it('starts the recording thread ahead of the first write, and still starts where the thread cannot (the writes then fail and are retried)', async () => {
    const writer = workerStore({ projectId: 'prj_unknown', env: { ...process.env, ...storage.location.env } }, pino({ level: 'silent' }));
    await writer.prepare();
    const batch = new RecordedBatch(1, 'px', 0);
    batch.add({ method: 'GET', path: '/guides/a', at: Date.now(), status: 200, ip: '203.0.113.9', userAgent: chrome });
    await expect(writer.store(batch)).rejects.toThrow('No project has the id prj_unknown.');
    await writer.close();
  });

  it('answers 502 when the upstream is down, and records the request', async () => {
    const closed = createServer();
    closed.listen(0, '127.0.0.1');
    await once(closed, 'listening');
    const port = (closed.address() as AddressInfo).port;
    closed.close();
    const proxy = await startProxy({ upstream: `http://127.0.0.1:${port}` });
    const response = await fetchRaw(`${proxy.url}/guides/setup`);
    expect(response.status).toBe(502);
    expect(JSON.parse(response.body.toString())).toMatchObject({ code: 'bad_gateway' });
    await until(async () => (await proxy.status()).buffered === 0);
    expect(await proxy.status()).toMatchObject({ recorded: 1, stored: 1 });
    await proxy.stop();
  });

  it('answers 504 when the upstream does not answer in time, and lets go of the upstream when the client leaves', async () => {
    const proxy = await startProxy({ timeoutMilliseconds: 300 });
    const hung = await fetchRaw(`${proxy.url}/hang`);
    expect(hung.status).toBe(504);
    expect(JSON.parse(hung.body.toString())).toMatchObject({ code: 'gateway_timeout' });
    // A client that reads the first bytes of an endless answer and leaves: the upstream request ends with it.
    const before = upstream.endless.length;
    await new Promise<void>((resolve, reject) => {
      const target = new URL(`${proxy.url}/endless`);
      const outgoing = httpRequest({ host: target.hostname, port: target.port, path: target.pathname }, (response) => {
        response.once('data', () => {
          outgoing.destroy();
          resolve();
        });
      });
      outgoing.on('error', (error) => (outgoing.destroyed ? undefined : reject(error)));
      outgoing.end();
    });
    await until(() => upstream.endless.length > before);
    expect(upstream.endless.at(-1)).toBe('closed');
    await proxy.stop();
  });

  it('keeps serving while the database is gone, retries, then stores what it held, and counts what it had to drop', async () => {
    const proxy = await startProxy({ maxBuffered: 30 });
    await fetchRaw(`${proxy.url}/warm`, { headers: { 'user-agent': chrome } });
    await until(async () => (await proxy.status()).stored === 1);
    await storage.db.schema.alterTable('analytics_events').renameTo('analytics_events_away').execute();
    for (let index = 0; index < 40; index++) {
      const response = await fetchRaw(`${proxy.url}/page-${index}`, { headers: { 'user-agent': chrome } });
      expect(response.status).toBe(200);
    }
    await until(async () => (await proxy.status()).failedWrites > 0);
    const during = await proxy.status();
    expect(during.databaseError).not.toBeNull();
    expect(during.dropped).toBe(10);
    await storage.db.schema.alterTable('analytics_events_away').renameTo('analytics_events').execute();
    await until(async () => (await proxy.status()).buffered === 0);
    expect(await proxy.status()).toMatchObject({ recorded: 41, stored: 31, dropped: 10, databaseError: null });
    expect(await proxy.storedEvents()).toBe(31);
    await proxy.stop();
  }, 60_000);

  it.runIf(database.dialect === 'postgres')(
    'keeps serving while PostgreSQL cannot be reached at all, says so in its log, and stores what it held once it is back',
    async () => {
      // The database's address goes through a TCP relay that this test shuts and opens again: connections are refused meanwhile.
      const relay = await tcpRelay(new URL(storage.location.env.DATABASE_URL!));
      const log: string[] = [];
      await relay.shut();
      const proxy = await startProxy({ env: { DATABASE_URL: relay.url }, log });
      try {
        for (let index = 0; index < 5; index++) {
          expect((await fetchRaw(`${proxy.url}/guides/page-${index}`, { headers: { 'user-agent': chrome } })).status).toBe(200);
        }
        await until(async () => (await proxy.status()).failedWrites >= 2);
        const down = await proxy.status();
        expect(down).toMatchObject({ recorded: 5, stored: 0, buffered: 5, dropped: 0 });
        expect(down.databaseError).not.toBeNull();
        expect(log.some((line) => line.includes('could not store recorded requests (database slow or down)'))).toBe(true);

        await relay.open();
        await until(async () => (await proxy.status()).stored === 5);
        expect(await proxy.status()).toMatchObject({ recorded: 5, stored: 5, buffered: 0, dropped: 0, databaseError: null });
        expect(log.some((line) => line.includes('database available again: recording resumed'))).toBe(true);
        expect(await proxy.storedEvents()).toBe(5);
      } finally {
        await proxy.stop();
        await relay.shut();
      }
    },
  );

  it('answers without waiting while another connection holds the database locked (a slow database)', async () => {
    const proxy = await startProxy();
    await fetchRaw(`${proxy.url}/warm`, { headers: { 'user-agent': chrome } });
    await until(async () => (await proxy.status()).stored === 1);
    await storage.db.transaction().execute(async (trx) => {
      // SQLite transactions take the write lock at begin; PostgreSQL needs the table locked.
      if (database.dialect === 'postgres') await sql`lock table analytics_events in access exclusive mode`.execute(trx);
      for (let index = 0; index < 20; index++) {
        expect((await fetchRaw(`${proxy.url}/locked-${index}`, { headers: { 'user-agent': chrome } })).status).toBe(200);
      }
      expect((await proxy.status()).stored).toBe(1);
    });
    await until(async () => (await proxy.status()).stored === 21);
    expect(await proxy.stop()).toMatchObject({ recorded: 21, stored: 21, dropped: 0 });
  }, 60_000);
});
