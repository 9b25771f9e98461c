import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prepareAll, storeEvents } from '../../src/analytics/ingest/ingest.ts';
import type { AppContext } from '../../src/http/context.ts';
import type { Storage } from '../../src/storage/dialect.ts';
import { createTenant, testApp, testContext, type Tenant } from '../support/app.ts';
import { testDatabases } from '../support/storage.ts';

/**
 * Texts no database stores as given (a NUL character, which PostgreSQL refuses in any text; an unpaired
 * UTF-16 surrogate, which has no UTF-8 form) and offsets past what a database takes: each is a 400, or
 * one event's error beside the others it came with, never a 500 or a lost batch; on both dialects.
 */
const firefox = 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0';
const huge = '100000000000000000000000';

describe.each(testDatabases)('texts and numbers no database stores, on $dialect', (database) => {
  let storage: Storage;
  let context: AppContext;
  let app: FastifyInstance;
  let tenant: Tenant;
  const api = (url: string, init: Record<string, unknown> = {}) =>
    app.inject({ method: 'GET', url: `/v1/analytics/${tenant.project.id}${url}`, headers: tenant.auth, ...init });
  const postEvents = (events: unknown[]) => api('/events', { method: 'POST', payload: { events } });
  /** Sends `records` as one NDJSON batch to a new drain of the project. */
  const drainBatch = async (records: Record<string, unknown>[]) => {
    const drain = (await api('/drains', { method: 'POST', payload: { kind: 'ndjson' } })).json();
    return app.inject({
      method: 'POST',
      url: drain.url,
      headers: { authorization: `Bearer ${drain.secret}`, 'content-type': 'application/x-ndjson' },
      payload: records.map((record) => JSON.stringify(record)).join('\n'),
    });
  };
  const storedPaths = async () => ((await api('/views')).json().views as { path: string }[]).map((row) => row.path).sort();

  beforeAll(async () => {
    storage = await database.open();
    context = testContext(storage, { config: { secretKey: randomBytes(32) } });
    app = await testApp(context);
    tenant = await createTenant(storage, { project: { trackerDomains: ['docs.example.com'] } });
    await storeEvents(context.analytics, tenant.project, prepareAll([{ path: '/first', visitorId: 'r1', ip: '8.8.8.8', userAgent: firefox }]).events);
  });
  afterAll(async () => {
    await app?.close();
    await storage?.close();
  });

  it('refuses one event with such a text and stores the others of its request', async () => {
    const response = await postEvents([
      { path: '/good-1', userAgent: firefox, visitorId: 'g1' },
      { path: '/lone', userAgent: 'agent \ud800 half', visitorId: 'v1' },
      { path: '/nul', userAgent: 'agent \u0000 nul', visitorId: 'v2' },
      { path: '/ref', userAgent: firefox, visitorId: 'v3', referrer: 'https://example.com/\u0000' },
      { path: '/p\u0000th', userAgent: firefox, visitorId: 'v4' },
      { path: '/good-2', userAgent: firefox, visitorId: 'g2' },
    ]);
    expect(response.statusCode).toBe(202);
    const body = response.json();
    expect(body).toMatchObject({ accepted: 2, rejected: 4 });
    expect(body.errors.map((error: { index: number }) => error.index)).toEqual([1, 2, 3, 4]);
    expect(body.errors[0].message).toMatch(/userAgent holds a NUL character or an unpaired UTF-16 surrogate/);
    expect(body.errors[2].message).toMatch(/^referrer /);
    expect(body.errors[3].message).toMatch(/^path /);
    expect(await storedPaths()).toEqual(['/first', '/good-1', '/good-2']);
  });

  it('refuses a feedback or a search with such a text by its index', async () => {
    const response = await postEvents([
      { kind: 'feedback', path: '/first', source: 'contextual', comment: 'broken \u0000 here' },
      { kind: 'search', query: 'install \udc00', hits: 0 },
      { kind: 'search', query: 'install', hits: 1 },
    ]);
    expect(response.statusCode).toBe(202);
    expect(response.json()).toMatchObject({ accepted: 1, rejected: 2, errors: [{ index: 0 }, { index: 1 }] });
    expect(response.json().errors[0].message).toMatch(/^comment holds a NUL/);
  });

  it('skips a drain record with such a text and stores the rest of the batch', async () => {
    const response = await drainBatch([
      { path: '/drained', userAgent: firefox, ip: '8.8.4.4' },
      { path: '/drained-bad', userAgent: 'x \ud800', ip: '8.8.8.8' },
      { path: '/drained-nul', userAgent: firefox, ip: '9.9.9.9', referrer: 'https://a.example/\u0000' },
    ]);
    expect(response.statusCode).toBe(200);
    expect(await storedPaths()).toContain('/drained');
    expect(await storedPaths()).not.toContain('/drained-bad');
    expect(await storedPaths()).not.toContain('/drained-nul');
  });

  it('skips a drain record whose method or content type is not text, and stores the rest of the batch', async () => {
    const response = await drainBatch([
      { path: '/typed', userAgent: firefox, ip: '8.8.4.4' },
      { path: '/typed-method', userAgent: firefox, ip: '8.8.8.8', method: 1 },
      { path: '/typed-type', userAgent: firefox, ip: '9.9.9.9', contentType: 5 },
    ]);
    expect(response.statusCode).toBe(200);
    const paths = await storedPaths();
    expect(paths).toContain('/typed');
    expect(paths).not.toContain('/typed-method');
    expect(paths).not.toContain('/typed-type');
  });

  it('answers 400 to a filter or a cursor holding such a text, through the API and a shared link', async () => {
    for (const query of [
      '/visitors?filter=source==x%00',
      '/visitors?filter=path==/a%00&filter=device==desktop',
      '/visitors?filter=country==%00&filter=os==x',
      '/breakdown?property=os&filter=browser==x%00',
      `/feedback?cursor=${Buffer.from('[0,"\\u0000"]').toString('base64url')}`,
    ]) {
      const response = await api(query);
      expect([query, response.statusCode, response.json().code]).toEqual([query, 400, 'invalid_request']);
    }
    const link = (await api('/shared-links', { method: 'POST' })).json();
    const shared = await app.inject({ method: 'GET', url: `${link.url}?filter=source==x%00` });
    expect(shared.statusCode).toBe(400);
  });

  it('answers 400 to an offset past what a database takes; a shared page shows its last page instead', async () => {
    for (const query of [
      `/visitors?filter=country==US&filter=device==desktop&offset=${huge}`,
      `/visitors?offset=${huge}`,
      `/breakdown?property=country&filter=device==desktop&offset=${huge}`,
      `/referrers?filter=device==desktop&offset=${huge}`,
      `/feedback/by-page?offset=${huge}`,
    ]) {
      const response = await api(query);
      expect([query, response.statusCode]).toEqual([query, 400]);
      expect(response.json().error).toMatch(/offset must be <= 9007199254740991/);
    }
    const docs = await app.inject({ method: 'GET', url: `/v1/docs/${tenant.project.id}/pages?offset=${huge}`, headers: tenant.auth });
    expect(docs.statusCode).toBe(400);
    const link = (await api('/shared-links', { method: 'POST' })).json();
    const shared = await app.inject({ method: 'GET', url: `${link.url}?filter=device==desktop&offset=${huge}` });
    expect(shared.statusCode).toBe(200);
    const widest = await api('/visitors?offset=9007199254740991');
    expect(widest.statusCode).toBe(200);
    expect(widest.json()).toMatchObject({ visitors: [], hasMore: false });
  });

  it('answers 400, not 500, to an identifier holding a NUL, and changes nothing', async () => {
    const before = await storedPaths();
    for (const [method, url] of [
      ['GET', `/v1/analytics/${tenant.project.id}%00/visitors`],
      ['PATCH', `/v1/analytics/${tenant.project.id}/feedback/fbk_%00`],
    ] as const) {
      const response = await app.inject({ method, url, headers: tenant.auth, payload: method === 'PATCH' ? { status: 'resolved' } : undefined });
      expect([url, response.statusCode < 500, response.statusCode >= 400]).toEqual([url, true, true]);
    }
    expect(await storedPaths()).toEqual(before);
  });
});
