import type { FastifyInstance } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { updateProject } from '../../src/accounts/projects.ts';
import { maxEventsPerRequest } from '../../src/analytics/ingest/ingest.ts';
import type { Config } from '../../src/config/config.ts';
import type { Storage } from '../../src/storage/dialect.ts';
import { createTenant, testApp, testContext, type Tenant } from '../support/app.ts';
import { testDatabases } from '../support/storage.ts';

const chrome = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';
const site = 'https://docs.acme.test';

/** The collect endpoint and the ingestion API as an attacker meets them: no key, or hostile bodies. */
describe.each(testDatabases)('public analytics endpoints on $dialect', (database) => {
  let storage: Storage;
  let app: FastifyInstance | undefined;

  beforeAll(async () => {
    storage = await database.open();
  });
  afterEach(async () => {
    await app?.close();
    app = undefined;
    vi.restoreAllMocks();
  });
  afterAll(async () => {
    await storage.close();
  });

  async function start(config: Partial<Config> = {}) {
    app = await testApp(testContext(storage, { config }));
    const tenant = await createTenant(storage);
    await updateProject(storage.db, tenant.project.id, { trackerDomains: ['docs.acme.test'] });
    return { app, tenant };
  }

  const storedEvents = async () =>
    Number(
      (
        await storage.db
          .selectFrom('analytics_events')
          .select((eb) => eb.fn.countAll().as('count'))
          .executeTakeFirstOrThrow()
      ).count,
    );

  /** A beacon as the tracker sends it, from `remoteAddress` (each test has its own: the limits live in the shared database). */
  const beacon = (target: FastifyInstance, tenant: Tenant, options: { remoteAddress: string; headers?: Record<string, string>; path?: string }) =>
    target.inject({
      method: 'POST',
      url: '/v1/collect',
      remoteAddress: options.remoteAddress,
      headers: { 'content-type': 'text/plain', origin: site, 'user-agent': chrome, ...options.headers },
      payload: JSON.stringify({ project: tenant.project.id, url: `${site}${options.path ?? '/guides/setup'}`, visitorId: `visitor-${Math.random()}` }),
    });

  /** Whether JSON.parse was ever handed a text as long as `length`: the hostile body must be refused unread. */
  const parsedTextsOf = (parse: { mock: { calls: unknown[][] } }, length: number) =>
    parse.mock.calls.filter(([text]) => typeof text === 'string' && text.length >= length).length;

  it('refuses a 16 MB body of "[" to the ingestion API, as JSON and as NDJSON, before parsing it, and stores nothing', async () => {
    const { app, tenant } = await start();
    const before = await storedEvents();
    const nested = '['.repeat(16 * 1024 * 1024 - 1024);
    const parse = vi.spyOn(JSON, 'parse');
    for (const type of ['application/json', 'application/x-ndjson']) {
      const response = await app.inject({
        method: 'POST',
        url: `/v1/analytics/${tenant.project.id}/events`,
        headers: { ...tenant.auth, 'content-type': type },
        payload: nested,
      });
      expect(response.statusCode, type).toBe(400);
      expect(response.json()).toMatchObject({ code: 'invalid_request', error: expect.stringContaining('levels deep') });
    }
    expect(parsedTextsOf(parse, 1024)).toBe(0);
    expect(await storedEvents()).toBe(before);
  });

  it('still takes ordinary bodies, and NDJSON lines that are only invalid one by one', async () => {
    const { app, tenant } = await start();
    const post = (type: string, payload: string) =>
      app.inject({ method: 'POST', url: `/v1/analytics/${tenant.project.id}/events`, headers: { ...tenant.auth, 'content-type': type }, payload });
    const json = await post('application/json', JSON.stringify({ events: [{ path: '/a', userAgent: chrome }] }));
    expect(json.json()).toMatchObject({ accepted: 1, rejected: 0 });
    const lines = await post('application/x-ndjson', `${JSON.stringify({ path: '/a' })}\n[[[[\n${JSON.stringify({ path: '/b' })}\n`);
    expect(lines.statusCode).toBe(202);
    expect(lines.json()).toMatchObject({ accepted: 2, rejected: 1 });
  });

  it('refuses NDJSON of more events than a request may hold with 413 on its line count, parsing no line', async () => {
    // Parsed on the event loop, where the spy sees it.
    const { app, tenant } = await start({ parseThreads: 0 });
    const post = (payload: string) =>
      app.inject({
        method: 'POST',
        url: `/v1/analytics/${tenant.project.id}/events`,
        headers: { ...tenant.auth, 'content-type': 'application/x-ndjson' },
        payload,
      });
    const line = '{"path":"/too-many"}';
    const parse = vi.spyOn(JSON, 'parse');
    const refused = await post(`${line}\n`.repeat(maxEventsPerRequest + 1));
    expect(refused.statusCode).toBe(413);
    expect(refused.json()).toMatchObject({ code: 'payload_too_large', error: expect.stringContaining(`has ${maxEventsPerRequest + 1} events`) });
    expect(parse.mock.calls.filter(([text]) => text === line).length).toBe(0);
    // Blank lines, Unicode spacing included, are no events: as many lines as a request may hold are taken.
    const blank = ['', ' \t\r', '\u00a0', '\uFEFF'].join('\n');
    const taken = await post(`${blank}\n${`{}\n${blank}\n`.repeat(maxEventsPerRequest)}`);
    expect(taken.statusCode).toBe(202);
    expect(taken.json()).toMatchObject({ accepted: 0, rejected: maxEventsPerRequest });
  });

  it('refuses JSON of more events than a request may hold with 413 on its element count, parsing no event', async () => {
    // Parsed on the event loop, where the spy sees it.
    const { app, tenant } = await start({ parseThreads: 0 });
    const post = (payload: string) =>
      app.inject({
        method: 'POST',
        url: `/v1/analytics/${tenant.project.id}/events`,
        headers: { ...tenant.auth, 'content-type': 'application/json' },
        payload,
      });
    // Events with commas, brackets and braces in strings and nested values (each refused on its own: no path starting with `/`).
    const kinds = ['{"path":"no-slash","referrer":"https://a.test/?q=[1,2]{3}\\\\","headers":{"x":"],"}}', '[1,[2,3],{"a":[4]}]', '"},{"', '0'];
    const events = (count: number, separator = ',') => Array.from({ length: count }, (_, index) => kinds[index % kinds.length]).join(separator);
    const shapes = (count: number) => [
      `{"events":[${events(count)}]}`,
      `\n { "events" :\t[ ${events(count, ' ,\r\n ')} ] } \n`,
      `\uFEFF{"events":[${events(count)}]}`,
      `{"\\u0065vents":[${events(count)}]}`,
      `{"events":[],"events":[${events(count)}]}`,
    ];
    const parse = vi.spyOn(JSON, 'parse');
    for (const payload of shapes(maxEventsPerRequest + 1)) {
      const refused = await post(payload);
      expect(refused.statusCode).toBe(413);
      expect(refused.json()).toEqual({
        code: 'payload_too_large',
        error: `This request has ${maxEventsPerRequest + 1} events; send at most ${maxEventsPerRequest} per request.`,
      });
    }
    expect(parsedTextsOf(parse, 1024)).toBe(0);
    // As many events as a request may hold are taken, whatever the body's shape.
    for (const payload of shapes(maxEventsPerRequest)) {
      const taken = await post(payload);
      expect(taken.statusCode).toBe(202);
      expect(taken.json()).toMatchObject({ accepted: 0, rejected: maxEventsPerRequest });
    }
  });

  it('answers 413 to megabyte bodies and 400 to small nested ones on the collect endpoint, parsing neither', async () => {
    const { app, tenant } = await start();
    const before = await storedEvents();
    const parse = vi.spyOn(JSON, 'parse');
    for (const type of ['text/plain', 'application/json', 'application/x-ndjson']) {
      for (let attempt = 0; attempt < 8; attempt++) {
        const large = await app.inject({
          method: 'POST',
          url: '/v1/collect',
          headers: { 'content-type': type, origin: site },
          payload: '['.repeat(1024 * 1024),
        });
        expect(large.statusCode, type).toBe(413);
        expect(large.json().code).toBe('payload_too_large');
      }
      const small = await app.inject({
        method: 'POST',
        url: '/v1/collect',
        headers: { 'content-type': type, origin: site },
        payload: `${'['.repeat(4000)}"${tenant.project.id}"`,
      });
      expect(small.statusCode, type).toBe(400);
    }
    expect(parsedTextsOf(parse, 4000)).toBe(0);
    expect(await storedEvents()).toBe(before);
  });

  it('refuses views from Origin: null (a sandboxed frame on any site) with 403 and counts none', async () => {
    const { app, tenant } = await start();
    const before = await storedEvents();
    const response = await beacon(app, tenant, { remoteAddress: '198.51.100.4', headers: { origin: 'null' } });
    expect(response.statusCode).toBe(403);
    expect(response.json()).toMatchObject({ code: 'forbidden', error: expect.stringContaining('sandboxed') });
    expect(await storedEvents()).toBe(before);
  });

  it('limits views per client address, with RateLimit headers and Retry-After, and counts only the accepted ones', async () => {
    const { app, tenant } = await start({ collectRateLimitPerAddress: 3, collectRateLimitPerProject: 1000 });
    const before = await storedEvents();
    const answers = [];
    for (let index = 0; index < 5; index++) answers.push(await beacon(app, tenant, { remoteAddress: '198.51.100.5' }));
    expect(answers.map((answer) => answer.statusCode)).toEqual([204, 204, 204, 429, 429]);
    expect(answers[0].headers).toMatchObject({ 'ratelimit-limit': '3', 'ratelimit-remaining': '2' });
    expect(answers[3].headers).toMatchObject({ 'ratelimit-limit': '3', 'ratelimit-remaining': '0', 'retry-after': expect.stringMatching(/^\d+$/) });
    expect(answers[3].json()).toMatchObject({ code: 'rate_limited', error: expect.stringContaining('QUIRE_COLLECT_RATE_LIMIT_PER_ADDRESS') });
    expect(await storedEvents()).toBe(before + 3);
    // Another client is not held back by the first one's budget.
    expect((await beacon(app, tenant, { remoteAddress: '203.0.113.50' })).statusCode).toBe(204);
  });

  it('counts a forged X-Forwarded-For from an untrusted peer against the peer, and the IPv6 /64 as one client', async () => {
    const { app, tenant } = await start({ collectRateLimitPerAddress: 2, collectRateLimitPerProject: 1000 });
    const forged = [];
    for (let index = 0; index < 4; index++)
      forged.push((await beacon(app, tenant, { remoteAddress: '198.51.100.6', headers: { 'x-forwarded-for': `192.0.2.${index + 1}` } })).statusCode);
    expect(forged).toEqual([204, 204, 429, 429]);
    const rotated = [];
    for (let index = 0; index < 3; index++) rotated.push((await beacon(app, tenant, { remoteAddress: `2001:db8:1:2::${index + 1}` })).statusCode);
    expect(rotated).toEqual([204, 204, 429]);
  });

  it('gives each client behind a trusted proxy its own budget', async () => {
    const { app, tenant } = await start({ collectRateLimitPerAddress: 1, collectRateLimitPerProject: 1000, trustedProxies: ['10.0.0.0/8'] });
    const proxied = (client: string) => beacon(app, tenant, { remoteAddress: '10.0.0.2', headers: { 'x-forwarded-for': client } });
    expect((await proxied('192.0.2.10')).statusCode).toBe(204);
    expect((await proxied('192.0.2.11')).statusCode).toBe(204);
    expect((await proxied('192.0.2.10')).statusCode).toBe(429);
  });

  it('checks a view, feedback or search before the limits: refused ones use no budget, and stay 400 once the limit is used up', async () => {
    const { app, tenant } = await start({ collectRateLimitPerAddress: 2, collectRateLimitPerProject: 1000 });
    const remoteAddress = '198.51.100.8';
    const collect = (fields: Record<string, unknown>, headers: Record<string, string> = {}) =>
      app.inject({
        method: 'POST',
        url: '/v1/collect',
        remoteAddress,
        headers: { 'content-type': 'text/plain', origin: site, 'user-agent': chrome, ...headers },
        payload: JSON.stringify({ project: tenant.project.id, url: `${site}/guides/setup`, visitorId: 'visitor-checked-first', ...fields }),
      });
    const refused = [
      await collect({}, { 'user-agent': 'x'.repeat(3000) }),
      await collect({ kind: 'feedback', data: { source: 'contextual', comment: 'x'.repeat(2001) } }),
      await collect({ kind: 'search', data: { query: 'setup' } }),
    ];
    expect(refused.map((answer) => answer.statusCode)).toEqual([400, 400, 400]);
    for (const answer of refused) expect(answer.json()).toMatchObject({ code: 'invalid_request' });
    expect([(await collect({})).statusCode, (await collect({})).statusCode, (await collect({})).statusCode]).toEqual([204, 204, 429]);
    expect((await collect({}, { 'user-agent': 'x'.repeat(3000) })).statusCode).toBe(400);
  });

  it('limits views per project across addresses, and a refused view uses none of the client’s budget', async () => {
    const { app, tenant } = await start({ collectRateLimitPerAddress: 1, collectRateLimitPerProject: 3 });
    const statuses = [];
    for (let index = 0; index < 4; index++) statuses.push((await beacon(app, tenant, { remoteAddress: `203.0.113.${index + 1}` })).statusCode);
    expect(statuses).toEqual([204, 204, 204, 429]);
    const refused = await beacon(app, tenant, { remoteAddress: '203.0.113.9' });
    expect(refused.json()).toMatchObject({ code: 'rate_limited', error: expect.stringContaining('QUIRE_COLLECT_RATE_LIMIT_PER_PROJECT') });
    // The project's budget is its own: another project is not held back.
    const other = await createTenant(storage);
    await updateProject(storage.db, other.project.id, { trackerDomains: ['docs.acme.test'] });
    expect((await beacon(app, other, { remoteAddress: '203.0.113.4' })).statusCode).toBe(204);
  });
});
