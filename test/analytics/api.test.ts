import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import { updateProject } from '../../src/accounts/projects.ts';
import { clientAddressResolver, type AddressedRequest } from '../../src/http/client-address.ts';
import type { Storage } from '../../src/storage/dialect.ts';
import { createTenant, testApp, testContext, type Tenant } from '../support/app.ts';
import { testDatabases } from '../support/storage.ts';

const chrome = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';
const gptBot = 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)';

describe.each(testDatabases)('analytics API on $dialect', (database) => {
  let storage: Storage;
  let app: FastifyInstance;
  let tenant: Tenant;

  beforeAll(async () => {
    storage = await database.open();
    app = await testApp(testContext(storage, { config: { ingestBodyLimitBytes: 200_000 } }));
    tenant = await createTenant(storage);
  });
  afterAll(async () => {
    await app.close();
    await storage.close();
  });

  const post = (payload: unknown, headers: Record<string, string> = { 'content-type': 'application/json' }) =>
    app.inject({
      method: 'POST',
      url: `/v1/analytics/${tenant.project.id}/events`,
      headers: { ...tenant.auth, ...headers },
      payload: typeof payload === 'string' ? payload : JSON.stringify(payload),
    });
  const get = (query: string, measure = 'visitors', t: Tenant = tenant) =>
    app.inject({ method: 'GET', url: `/v1/analytics/${t.project.id}/${measure}?${query}`, headers: t.auth });

  it('answers zeros and an empty list for a project without data', async () => {
    const other = await createTenant(storage);
    const response = await get('dateFrom=2026-01-01&dateTo=2026-02-01', 'visitors', other);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ totals: { human: 0, ai: 0, total: 0 }, visitors: [], hasMore: false });
    expect(response.headers['ratelimit-limit']).toBe('100');
  });

  it('ingests JSON and NDJSON, rejects bad events one by one, and counts visitors exactly', async () => {
    const accepted = await post({
      events: [
        { timestamp: '2026-03-01T10:00:00Z', path: '/guides/setup', userAgent: chrome, ip: '203.0.113.7' },
        { timestamp: '2026-03-01T11:00:00Z', path: '/guides/setup/', userAgent: chrome, ip: '203.0.113.7' },
        { timestamp: '2026-03-01T12:00:00Z', path: '/guides/setup.md', userAgent: gptBot, ip: '20.171.206.1' },
        { timestamp: '2026-03-02T12:00:00Z', path: '/', visitorId: 'tracker-1', userAgent: chrome },
        { timestamp: '2026-03-02T12:00:00Z', path: '/', userAgent: 'curl/8.5.0' },
        { timestamp: '2026-03-02T12:00:00Z', path: '/missing', userAgent: chrome, status: 404 },
        { userAgent: chrome },
        { path: 'no-slash' },
        { path: '/x', ip: 'not-an-ip' },
        { path: '/x', color: 'red' },
      ],
    });
    expect(accepted.statusCode).toBe(202);
    expect(accepted.json()).toMatchObject({ accepted: 6, rejected: 4 });
    expect(accepted.json().errors.map((error: { index: number }) => error.index)).toEqual([6, 7, 8, 9]);

    const ndjson = await post(`{"timestamp":"2026-03-01T13:00:00Z","path":"/guides/setup","userAgent":"${gptBot}","visitorId":"tracker-1"}\nnot json\n`, {
      'content-type': 'application/x-ndjson',
    });
    expect(ndjson.json()).toEqual({ accepted: 1, rejected: 1, errors: [{ index: 1, message: expect.any(String) }] });

    const response = await get('dateFrom=2026-03-01&dateTo=2026-03-03');
    expect(response.json()).toEqual({
      totals: { human: 2, ai: 2, total: 3 },
      visitors: [
        { path: '/guides/setup', human: 1, ai: 2, total: 3 },
        { path: '/', human: 1, ai: 0, total: 1 },
      ],
      hasMore: false,
    });
    const views = await get('dateFrom=2026-03-01&dateTo=2026-03-03', 'views');
    expect(views.json().totals).toEqual({ human: 3, ai: 2, total: 5 });
    const paged = await get('dateFrom=2026-03-01&dateTo=2026-03-03&limit=1&offset=1');
    expect(paged.json()).toMatchObject({ visitors: [{ path: '/' }], hasMore: false });
    const first = await get('dateFrom=2026-03-01&dateTo=2026-03-03&limit=1');
    expect(first.json()).toMatchObject({ visitors: [{ path: '/guides/setup' }], hasMore: true });
    const partial = await get('dateFrom=2026-03-01T10:30:00Z&dateTo=2026-03-01T12:30:00%2B00:00');
    expect(partial.json()).toEqual({ totals: { human: 1, ai: 1, total: 2 }, visitors: [{ path: '/guides/setup', human: 1, ai: 1, total: 2 }], hasMore: false });
  });

  it('serves the tracker script and refuses a collect call from a foreign hostname', async () => {
    const script = await app.inject({ method: 'GET', url: '/script.js' });
    expect(script.statusCode).toBe(200);
    expect(script.body).toContain('/v1/collect');
    expect(script.body).not.toContain('document.cookie');
    expect(script.headers['content-encoding']).toBeUndefined();
    for (const [acceptEncoding, coding, decode] of [
      ['gzip, deflate, br', 'br', brotliDecompressSync],
      ['gzip', 'gzip', gunzipSync],
    ] as const) {
      const compressed = await app.inject({ method: 'GET', url: '/script.js', headers: { 'accept-encoding': acceptEncoding } });
      expect(compressed.headers['content-encoding']).toBe(coding);
      expect(compressed.headers.vary).toBe('accept-encoding');
      expect(compressed.rawPayload.length).toBeLessThan(2048);
      expect(decode(compressed.rawPayload).toString('utf8')).toBe(script.body);
      const again = await app.inject({
        method: 'GET',
        url: '/script.js',
        headers: { 'accept-encoding': acceptEncoding, 'if-none-match': compressed.headers.etag as string },
      });
      expect(again.statusCode).toBe(304);
      const weak = await app.inject({
        method: 'GET',
        url: '/script.js',
        headers: { 'accept-encoding': acceptEncoding, 'if-none-match': `"other", W/${compressed.headers.etag as string}` },
      });
      expect(weak.statusCode).toBe(304);
    }
    const collect = (url: string, origin: string) =>
      app.inject({
        method: 'POST',
        url: '/v1/collect',
        headers: { 'content-type': 'text/plain', origin },
        payload: JSON.stringify({ project: tenant.project.id, url, visitorId: 'x' }),
      });
    const foreign = await collect('https://evil.example/guides/setup', 'https://evil.example');
    expect(foreign.statusCode).toBe(403);
    expect(foreign.json().code).toBe('forbidden');
  });

  it('suggests a tracker-domains command that keeps the project’s current domains, without telling the caller what they are', async () => {
    const other = await createTenant(storage);
    const collect = (url: string, origin: string) =>
      app.inject({
        method: 'POST',
        url: '/v1/collect',
        headers: { 'content-type': 'text/plain', origin },
        payload: JSON.stringify({ project: other.project.id, url, visitorId: 'x' }),
      });
    const command = `quire projects update ${other.project.id} --tracker-domains`;

    expect((await collect('https://evil.example/a', 'https://evil.example')).json().error).toContain(`"${command} evil.example"`);

    await updateProject(storage.db, other.project.id, { trackerDomains: ['docs.example.com', 'staging.internal.example.org'] });
    const refused = await collect('https://evil.example/a', 'https://evil.example');
    expect(refused.statusCode).toBe(403);
    const message = refused.json().error as string;
    expect(message).toContain(`"${command} <current domains>,evil.example"`);
    expect(message).toContain('the flag replaces the list');
    expect(message).not.toContain('docs.example.com');
    expect(message).not.toContain('staging.internal');
    // The page is a tracker domain's but the request comes from another site: that site is the one named.
    expect((await collect('https://docs.example.com/a', 'https://evil.example')).json().error).toMatch(/^evil\.example is not/);
  });

  it('takes the client IP from X-Forwarded-For only behind a trusted proxy', () => {
    const clientAddress = clientAddressResolver(['10.0.0.0/8']);
    const request = (remoteAddress: string, forwarded?: string) =>
      ({ socket: { remoteAddress }, headers: forwarded ? { 'x-forwarded-for': forwarded } : {} }) as AddressedRequest;
    expect(clientAddress(request('203.0.113.7', '198.51.100.1'))).toBe('203.0.113.7');
    expect(clientAddress(request('10.0.0.2', '198.51.100.1, 10.0.0.9'))).toBe('198.51.100.1');
    expect(clientAddress(request('::ffff:10.0.0.2', '1.2.3.4, 198.51.100.1'))).toBe('198.51.100.1');
    expect(clientAddress(request('::ffff:203.0.113.7'))).toBe('203.0.113.7');
    expect(clientAddress(request('10.0.0.2', '198.51.100.1, not-an-address'))).toBeUndefined();
  });

  describe('bad input', () => {
    it.each([
      'dateFrom=2026-13-01',
      'dateFrom=2026-02-30',
      'dateTo=garbage',
      'dateFrom=2026-03-02&dateTo=2026-03-01',
      'dateFrom=2026-03-01&dateTo=2026-03-01',
      'dateFrom=2026-03-01T10:00:00',
      'limit=0',
      'limit=251',
      'limit=1.5',
      'limit=abc',
      'offset=-1',
      'offset=1.5',
      'color=red',
    ])('answers 400 to %s', async (query) => {
      for (const measure of ['visitors', 'views']) {
        const response = await get(query, measure);
        expect(response.statusCode, query).toBe(400);
        expect(response.json()).toMatchObject({ code: 'invalid_request', error: expect.any(String) });
      }
    });

    it('answers 400 to bodies that are not events and 413 to oversized ones', async () => {
      expect((await post('{"events": ')).statusCode).toBe(400);
      expect((await post({})).statusCode).toBe(400);
      expect((await post({ events: 'x' })).statusCode).toBe(400);
      expect((await post('path=/x', { 'content-type': 'text/csv' })).statusCode).toBe(400);
      const large = await post({ events: Array.from({ length: 5000 }, () => ({ path: '/a-rather-long-path/that/takes/space/in/the/body' })) });
      expect(large.statusCode).toBe(413);
      expect(large.json().code).toBe('payload_too_large');
    });

    it('answers a body large enough for a parse thread as it answers a small one', async () => {
      // 800 events (about 150 kB, parsed in a thread): every 100th is refused, with its own index.
      const events = Array.from({ length: 800 }, (_, index) =>
        index % 100 === 7
          ? { path: '/x', ip: 'not-an-ip' }
          : { timestamp: '2026-04-01T10:00:00Z', path: `/large/${index % 40}`, visitorId: `large-${index % 300}`, userAgent: chrome },
      );
      const large = await post({ events });
      expect(large.statusCode).toBe(202);
      expect(large.json()).toMatchObject({ accepted: 792, rejected: 8 });
      expect(large.json().errors.map((error: { index: number }) => error.index)).toEqual(Array.from({ length: 8 }, (_, index) => index * 100 + 7));
      const answer = await get('dateFrom=2026-04-01&dateTo=2026-04-02');
      // Visitors large-7, large-107 and large-207 came only in refused events.
      expect(answer.json().totals).toEqual({ human: 297, ai: 0, total: 297 });
      // Malformed large bodies get the answers small ones get.
      for (const [body, small] of [
        [
          { events, color: 'red' },
          { events: [], color: 'red' },
        ],
        [{ events: 'x'.repeat(100_000) }, { events: 'x' }],
      ]) {
        const refused = await post(body);
        expect(refused.statusCode).toBe(400);
        expect(refused.json().error).toBe((await post(small)).json().error);
      }
      expect((await post(`${JSON.stringify({ events })}]`)).json()).toMatchObject({ code: 'invalid_request', error: 'The body is not valid JSON.' });
      const ndjson = await post(`${events.map((event) => JSON.stringify(event)).join('\n')}\n{not json`, { 'content-type': 'application/x-ndjson' });
      expect(ndjson.json()).toMatchObject({ accepted: 792, rejected: 9 });
    });

    it('answers 403 to a key without the ingest scope and 404 to a foreign project', async () => {
      const readOnly = await createTenant(storage, { scopes: ['read'] });
      const refused = await app.inject({ method: 'POST', url: `/v1/analytics/${readOnly.project.id}/events`, headers: readOnly.auth, payload: { events: [] } });
      expect(refused.statusCode).toBe(403);
      const foreign = await get('', 'visitors', { ...tenant, auth: readOnly.auth });
      expect(foreign.statusCode).toBe(404);
    });
  });
});
