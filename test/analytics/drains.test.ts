import { createHmac, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type * as Zlib from 'node:zlib';
import { gunzipSync, gzipSync } from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ipDropped, pathEscaped } from '../../src/analytics/capture/request-event.ts';
import { assetReason } from '../../src/analytics/capture/assets.ts';
import { page } from '../../src/analytics/query/query.ts';
import { inlineBelow } from '../../src/lib/parse-pool.ts';
import type { AppContext } from '../../src/http/context.ts';
import type { Storage } from '../../src/storage/dialect.ts';
import { createTenant, testApp, testContext, type Tenant } from '../support/app.ts';
import { testDatabases } from '../support/storage.ts';

// Decompression on the event loop is counted, so a test can see that a batch was refused without it.
vi.mock('node:zlib', async (importOriginal) => {
  const zlib = await importOriginal<typeof Zlib>();
  return { ...zlib, gunzipSync: vi.fn(zlib.gunzipSync) };
});

const fixture = (name: string) => readFileSync(new URL(`./fixtures/drains/${name}`, import.meta.url));
const sign = (secret: string, body: Buffer | string) => createHmac('sha1', secret).update(body).digest('hex');
const limit = 1_000_000;

interface CreatedDrain {
  id: string;
  kind: string;
  name: string | null;
  url: string;
  secret: string;
  createdAt: string;
}

describe.each(testDatabases)('push log drains on $dialect', (database) => {
  let storage: Storage;
  let context: AppContext;
  let app: FastifyInstance;
  let tenant: Tenant;
  let other: Tenant;

  beforeAll(async () => {
    storage = await database.open();
    context = testContext(storage, { config: { secretKey: randomBytes(32), ingestBodyLimitBytes: limit } });
    app = await testApp(context);
    tenant = await createTenant(storage);
    other = await createTenant(storage);
  });
  afterAll(async () => {
    await app.close();
    await storage.close();
  });

  async function createDrain(owner: Tenant, body: Record<string, unknown>): Promise<CreatedDrain> {
    const response = await app.inject({ method: 'POST', url: `/v1/analytics/${owner.project.id}/drains`, headers: owner.auth, payload: body });
    expect(response.statusCode, response.body).toBe(201);
    return response.json();
  }

  const path = (drain: CreatedDrain) => new URL(drain.url).pathname;
  function send(drain: CreatedDrain, payload: Buffer | string, headers: Record<string, string | undefined> = {}, url = path(drain)) {
    return app.inject({ method: 'POST', url, payload, headers: { 'content-type': 'application/x-ndjson', ...headers } });
  }

  async function storedEvents(owner: Tenant): Promise<number> {
    const row = await storage.db
      .selectFrom('analytics_events')
      .innerJoin('analytics_projects', 'analytics_projects.project_key', 'analytics_events.project_key')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .where('analytics_projects.project_id', '=', owner.project.id)
      .executeTakeFirstOrThrow();
    return Number(row.count);
  }

  it('creates drains whose secret is shown once, lists them without it, and deletes them', async () => {
    const drain = await createDrain(tenant, { kind: 'ndjson', name: 'nginx' });
    expect(drain).toMatchObject({ kind: 'ndjson', name: 'nginx' });
    expect(drain.id).toMatch(/^drn_/);
    expect(drain.secret).toMatch(/^qds_.{40,}/);
    expect(path(drain)).toBe(`/v1/analytics/${tenant.project.id}/drains/${drain.id}`);
    const list = await app.inject({ method: 'GET', url: `/v1/analytics/${tenant.project.id}/drains`, headers: tenant.auth });
    expect(list.statusCode).toBe(200);
    expect(list.body).not.toContain(drain.secret);
    expect(list.json().drains.map((entry: { id: string }) => entry.id)).toContain(drain.id);
    const stored = await storage.db.selectFrom('analytics_drains').select('secret').where('id', '=', drain.id).executeTakeFirstOrThrow();
    expect(stored.secret).not.toContain(drain.secret);

    const refused = await app.inject({ method: 'POST', url: `/v1/analytics/${tenant.project.id}/drains`, headers: tenant.auth, payload: { kind: 'syslog' } });
    expect(refused.statusCode).toBe(400);
    const deleted = await app.inject({ method: 'DELETE', url: path(drain), headers: tenant.auth });
    expect(deleted.statusCode).toBe(204);
    const after = await send(drain, '{"path": "/"}', { authorization: `Bearer ${drain.secret}` });
    expect(after.statusCode).toBe(404);
  });

  it("answers another organization's key with 404 on every drain operation, and its drain ids with 404", async () => {
    const drain = await createDrain(tenant, { kind: 'ndjson' });
    for (const [method, url] of [
      ['POST', `/v1/analytics/${tenant.project.id}/drains`],
      ['GET', `/v1/analytics/${tenant.project.id}/drains`],
      ['DELETE', path(drain)],
    ] as const) {
      const response = await app.inject({ method, url, headers: other.auth, payload: method === 'POST' ? { kind: 'not-a-kind' } : undefined });
      expect(response.statusCode, `${method} ${url}`).toBe(404);
    }
    const auth = { authorization: `Bearer ${drain.secret}` };
    const event = '{"path": "/stolen"}';
    // The victim's drain under the attacker's project, an unknown drain, a project that does not exist.
    expect((await send(drain, event, auth, `/v1/analytics/${other.project.id}/drains/${drain.id}`)).statusCode).toBe(404);
    expect((await send(drain, event, auth, `/v1/analytics/${tenant.project.id}/drains/drn_unknown`)).statusCode).toBe(404);
    expect((await send(drain, event, auth, `/v1/analytics/prj_missing/drains/${drain.id}`)).statusCode).toBe(404);
    expect(await storedEvents(other)).toBe(0);
  });

  it('refuses to create a drain on a server without QUIRE_SECRET_KEY, saying what to set', async () => {
    const bare = await testApp(testContext(storage));
    const response = await bare.inject({ method: 'POST', url: `/v1/analytics/${tenant.project.id}/drains`, headers: tenant.auth, payload: { kind: 'ndjson' } });
    await bare.close();
    expect(response.statusCode).toBe(409);
    expect(response.json().error).toContain('QUIRE_SECRET_KEY');
  });

  describe('Vercel', () => {
    let drain: CreatedDrain;
    let vercelOwner: Tenant;
    beforeAll(async () => {
      vercelOwner = await createTenant(storage);
      drain = await createDrain(vercelOwner, { kind: 'vercel', verifyToken: 'a1b2c3d4e5f6' });
    });

    it("answers Vercel's verification with the x-vercel-verify header and counts nothing", async () => {
      const get = await app.inject({ method: 'GET', url: path(drain) });
      expect(get.statusCode).toBe(200);
      expect(get.headers['x-vercel-verify']).toBe('a1b2c3d4e5f6');
      const unsigned = await send(drain, fixture('vercel.json'), { 'content-type': 'application/json' });
      expect(unsigned.statusCode).toBe(200);
      expect(unsigned.headers['x-vercel-verify']).toBe('a1b2c3d4e5f6');
      expect(unsigned.json().accepted).toBe(0);
      expect(await storedEvents(vercelOwner)).toBe(0);
    });

    it('tells the operator, once a minute, that unsigned batches are answered as the check and store nothing', async () => {
      const fresh = await createDrain(vercelOwner, { kind: 'vercel', verifyToken: 'f6e5d4c3b2a1' });
      const lines: string[] = [];
      const logger = context.logger;
      context.logger = pino({ level: 'warn' }, { write: (line: string) => void lines.push(line) });
      try {
        // Vercel's own check of a new endpoint has no body: nothing to say about it.
        expect((await app.inject({ method: 'POST', url: path(fresh) })).statusCode).toBe(200);
        expect(lines).toEqual([]);
        for (let attempt = 0; attempt < 3; attempt++) {
          expect((await send(fresh, fixture('vercel.json'), { 'content-type': 'application/json' })).statusCode).toBe(200);
        }
      } finally {
        context.logger = logger;
      }
      const warnings = lines.map((line) => JSON.parse(line) as { drain: string; msg: string }).filter((entry) => entry.msg.includes('unsigned batch'));
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatchObject({ drain: fresh.id });
      expect(warnings[0]!.msg).toContain("set the drain's secret as its signature secret in Vercel");
      expect(await storedEvents(vercelOwner)).toBe(0);
    });

    it('stores the documented JSON batch when signed, and the same batch again as duplicates', async () => {
      const body = fixture('vercel.json');
      const first = await send(drain, body, { 'content-type': 'application/json', 'x-vercel-signature': sign(drain.secret, body) });
      expect(first.statusCode, first.body).toBe(200);
      expect(first.json()).toEqual({ accepted: 1, duplicates: 0, skipped: 1, reasons: { 'not a request log entry': 1 }, notes: {} });
      const again = await send(drain, body, { 'content-type': 'application/json', 'x-vercel-signature': sign(drain.secret, body) });
      expect(again.json()).toMatchObject({ accepted: 0, duplicates: 1 });
      // The NDJSON delivery of the same request is the same view (Vercel's request id keys it).
      const lines = fixture('vercel.ndjson');
      const ndjson = await send(drain, lines, { 'x-vercel-signature': sign(drain.secret, lines) });
      expect(ndjson.json()).toMatchObject({ accepted: 0, duplicates: 1 });
      expect(await storedEvents(vercelOwner)).toBe(1);
      const views = await page(context.analytics, vercelOwner.project.id, {
        measure: 'views',
        from: Date.UTC(2019, 10, 15),
        to: Date.UTC(2019, 10, 16),
        limit: 10,
        offset: 0,
      });
      expect(views.rows.map((row) => row.path)).toEqual(['/api/users']);
    });

    it('accepts a gzip batch signed over its bytes as sent', async () => {
      const make = (id: string) =>
        Buffer.from(
          JSON.stringify([
            {
              id,
              requestId: id,
              timestamp: Date.now(),
              proxy: {
                timestamp: Date.now(),
                method: 'GET',
                path: `/${id}`,
                userAgent: ['Mozilla/5.0 Firefox/133.0'],
                statusCode: 200,
                clientIp: '203.0.113.8',
              },
            },
          ]),
        );
      const compressed = gzipSync(make('gzip-outer'));
      const overOuter = await send(drain, compressed, { 'content-encoding': 'gzip', 'x-vercel-signature': sign(drain.secret, compressed) });
      expect(overOuter.json()).toMatchObject({ accepted: 1 });
    });

    it('stores large batches read into shared memory, three at once, plain and gzip', async () => {
      // Batches of 64 KiB and more are read into shared slabs and parsed in a thread (http/shared-body.ts).
      const batch = (tag: string) =>
        Buffer.from(
          JSON.stringify(
            Array.from({ length: 600 }, (_, index) => ({
              id: `${tag}-${index}`,
              requestId: `${tag}-${index}`,
              // Random text, so a gzip batch too stays over 64 KiB and is read into a slab.
              message: randomBytes(120).toString('base64'),
              timestamp: Date.now(),
              proxy: {
                timestamp: Date.now(),
                method: 'GET',
                path: `/${tag}/${index}`,
                userAgent: ['Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0'],
                statusCode: 200,
                clientIp: `203.0.113.${index % 250}`,
              },
            })),
          ),
        );
      const [plain, gzip, unlabelled] = [batch('large-plain'), gzipSync(batch('large-gzip')), gzipSync(batch('large-unlabelled'))];
      // Every body as sent is one the reader moves into a slab (the route reads from the parse pool's threshold).
      for (const body of [plain, gzip, unlabelled]) expect(body.length).toBeGreaterThanOrEqual(inlineBelow);
      const before = await storedEvents(vercelOwner);
      const answers = await Promise.all([
        send(drain, plain, { 'content-type': 'application/json', 'x-vercel-signature': sign(drain.secret, plain) }),
        send(drain, gzip, { 'content-encoding': 'gzip', 'x-vercel-signature': sign(drain.secret, gzip) }),
        // Gzip's magic bytes say it when no header does.
        send(drain, unlabelled, { 'x-vercel-signature': sign(drain.secret, unlabelled) }),
      ]);
      for (const answer of answers) expect(answer.json()).toMatchObject({ accepted: 600, duplicates: 0, skipped: 0 });
      expect(await storedEvents(vercelOwner)).toBe(before + 1800);
      // Each view is its own batch's: no body was read from another's slab.
      const views = await page(context.analytics, vercelOwner.project.id, {
        measure: 'views',
        from: Date.now() - 86_400_000,
        to: Date.now() + 86_400_000,
        limit: 2000,
        offset: 0,
      });
      for (const tag of ['large-plain', 'large-gzip', 'large-unlabelled']) {
        expect(views.rows.filter((row) => row.path.startsWith(`/${tag}/`)).length).toBe(600);
      }
      // A wrong signature over a large body stores nothing.
      const forged = batch('large-forged');
      expect((await send(drain, forged, { 'x-vercel-signature': sign('not-the-secret', forged) })).statusCode).toBe(401);
      expect(await storedEvents(vercelOwner)).toBe(before + 1800);
    });

    it('checks the signature over the batch as sent, refusing a gzip bomb without decompressing it', async () => {
      // Within the limit once decompressed, so decompressing it fails nothing but costs the server the whole limit.
      const bomb = gzipSync(Buffer.alloc(limit - 1, 0x20));
      expect(bomb.length).toBeLessThan(limit / 100);
      vi.mocked(gunzipSync).mockClear();
      const forged = await send(drain, bomb, { 'content-encoding': 'gzip', 'x-vercel-signature': sign('not-the-secret', bomb) });
      expect(forged.statusCode).toBe(401);
      expect(vi.mocked(gunzipSync)).not.toHaveBeenCalled();
      // A signature over the decompressed bytes could only be checked by decompressing first: it is refused as any other.
      const overInner = await send(drain, bomb, { 'content-encoding': 'gzip', 'x-vercel-signature': sign(drain.secret, Buffer.alloc(limit - 1, 0x20)) });
      expect(overInner.statusCode).toBe(401);
      expect(overInner.json().error).toContain('over the body as sent');
      expect(vi.mocked(gunzipSync)).not.toHaveBeenCalled();
    });

    it('refuses a wrong signature with 401 and stores nothing', async () => {
      const before = await storedEvents(vercelOwner);
      const body = Buffer.from(JSON.stringify([{ id: 'forged', proxy: { method: 'GET', path: '/forged', statusCode: 200, timestamp: Date.now() } }]));
      for (const signature of [sign('not-the-secret', body), 'zz', sign(drain.secret, body).toUpperCase().slice(1)]) {
        const response = await send(drain, body, { 'x-vercel-signature': signature });
        expect(response.statusCode).toBe(401);
      }
      expect((await send(drain, body, { authorization: 'Bearer wrong' })).statusCode).toBe(401);
      expect(await storedEvents(vercelOwner)).toBe(before);
    });

    it('answers an unsigned batch with 401 when the drain has no verification code', async () => {
      const plain = await createDrain(vercelOwner, { kind: 'vercel' });
      expect((await send(plain, fixture('vercel.json'))).statusCode).toBe(401);
      expect((await app.inject({ method: 'GET', url: path(plain) })).statusCode).toBe(404);
    });
  });

  describe('Cloudflare Logpush', () => {
    let drain: CreatedDrain;
    let owner: Tenant;
    beforeAll(async () => {
      owner = await createTenant(storage);
      drain = await createDrain(owner, { kind: 'cloudflare' });
    });

    it("accepts Logpush's gzipped destination test without counting it", async () => {
      const response = await send(drain, gzipSync('{"content":"tests"}'), { 'content-encoding': 'gzip', authorization: `Bearer ${drain.secret}` });
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({ accepted: 0, duplicates: 0, skipped: 1, reasons: { 'Logpush destination test': 1 }, notes: {} });
    });

    it('stores gzip NDJSON of http_requests with the bearer header, skipping and counting what is no page view', async () => {
      const body = gzipSync(fixture('cloudflare.ndjson'));
      const headers = { 'content-type': 'text/plain', 'content-encoding': 'gzip', authorization: `Bearer ${drain.secret}` };
      const response = await send(drain, body, headers);
      expect(response.statusCode, response.body).toBe(200);
      const result = response.json();
      // The record with an invalid client IP is kept as a view without its IP (the rule logs and the proxy share).
      expect(result).toMatchObject({ accepted: 3, duplicates: 0, skipped: 2 });
      expect(result.reasons['no request path']).toBe(1);
      expect(result.reasons['not a GET or HEAD request']).toBe(1);
      // …and the answer says so, as an import's summary does.
      expect(result.notes).toEqual({ [ipDropped]: 1 });
      // Logpush retries a failed upload with the same file: nothing counts twice.
      expect((await send(drain, body, headers)).json()).toMatchObject({ accepted: 0, duplicates: 3 });
      const views = await page(context.analytics, owner.project.id, {
        measure: 'views',
        from: Date.UTC(2026, 10, 21),
        to: Date.UTC(2026, 10, 22),
        limit: 10,
        offset: 0,
      });
      expect(views.rows.find((row) => row.path === '/guides/setup')?.human).toBe(1);
    });

    it('takes the secret as a query parameter, and refuses a wrong or missing one with 401', async () => {
      const line = JSON.stringify({
        ClientRequestMethod: 'GET',
        ClientRequestURI: '/query',
        EdgeStartTimestamp: Date.now() * 1e6,
        EdgeResponseStatus: 200,
        RayID: 'q1',
      });
      // Logpush destinations may carry parameters of their own beside the secret.
      const url = `${path(drain)}?tags=host:docs.example.com,dataset:http_requests&secret=${encodeURIComponent(drain.secret)}`;
      expect((await send(drain, line, {}, url)).json()).toMatchObject({ accepted: 1 });
      const before = await storedEvents(owner);
      const other = JSON.stringify({ ClientRequestMethod: 'GET', ClientRequestURI: '/nope', EdgeStartTimestamp: Date.now() * 1e6, RayID: 'q2' });
      expect((await send(drain, other, {}, `${path(drain)}?secret=wrong`)).statusCode).toBe(401);
      expect((await send(drain, other)).statusCode).toBe(401);
      expect((await send(drain, other, { authorization: `Bearer ${drain.secret}x` })).statusCode).toBe(401);
      expect(await storedEvents(owner)).toBe(before);
    });
  });

  it('stores Netlify traffic logs, skipping other log types', async () => {
    const owner = await createTenant(storage);
    const drain = await createDrain(owner, { kind: 'netlify' });
    // Hosts label their batches in many ways, or not at all.
    const response = await send(drain, fixture('netlify.ndjson'), { 'content-type': undefined }, `${path(drain)}?secret=${drain.secret}`);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toEqual({ accepted: 2, duplicates: 0, skipped: 1, reasons: { 'not a traffic log entry': 1 }, notes: {} });
    const views = await page(context.analytics, owner.project.id, {
      measure: 'views',
      from: Date.UTC(2026, 10, 21),
      to: Date.UTC(2026, 10, 22),
      limit: 10,
      offset: 0,
    });
    expect(views.totals.human).toBe(1);
    expect(views.totals.ai).toBe(1);
  });

  describe('generic NDJSON and hostile bodies', () => {
    let drain: CreatedDrain;
    let owner: Tenant;
    let auth: Record<string, string>;
    beforeAll(async () => {
      owner = await createTenant(storage);
      drain = await createDrain(owner, { kind: 'ndjson' });
      auth = { authorization: `Bearer ${drain.secret}` };
    });

    it('skips invalid JSON lines, deep nesting and invalid events one by one, never failing the batch', async () => {
      const body = [
        JSON.stringify({ path: '/guides/a', userAgent: 'Mozilla/5.0 Firefox/133.0', ip: '203.0.113.9' }),
        '{"path": "/broken"',
        `{"path": "/deep", "headers": ${'['.repeat(100)}${']'.repeat(100)}}`,
        JSON.stringify({ path: 'no-slash' }),
        JSON.stringify({ path: '/guides/b', unknown: 1 }),
      ].join('\n');
      const response = await send(drain, body, auth);
      expect(response.statusCode).toBe(200);
      expect(response.json()).toMatchObject({ accepted: 1, skipped: 4 });
      expect((await send(drain, body, auth)).json()).toMatchObject({ accepted: 0, duplicates: 1 });
    });

    it('applies the capture rules to its event objects, as logs and the proxy do: assets and other methods skipped, a bad IP dropped, a bad path escaped', async () => {
      const body = [
        JSON.stringify({ path: '/assets/app.js', userAgent: 'Mozilla/5.0 Firefox/133.0', ip: '203.0.113.10' }),
        JSON.stringify({ path: '/guides/page', contentType: 'image/png', ip: '203.0.113.10' }),
        JSON.stringify({ path: '/guides/form', method: 'POST', ip: '203.0.113.10' }),
        JSON.stringify({ path: '/guides/kept', userAgent: 'Mozilla/5.0 Firefox/133.0', ip: 'not-an-address' }),
        JSON.stringify({ path: '/guides/a%zz', userAgent: 'Mozilla/5.0 Firefox/133.0', ip: '203.0.113.10' }),
        JSON.stringify({ path: '/llms.txt', userAgent: 'GPTBot/1.2', ip: '203.0.113.11' }),
      ].join('\n');
      const response = await send(drain, body, auth);
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({
        accepted: 3,
        duplicates: 0,
        skipped: 3,
        reasons: { [assetReason]: 2, 'not a GET or HEAD request': 1 },
        notes: { [ipDropped]: 1, [pathEscaped]: 1 },
      });
    });

    it('counts assets as views for a project whose asset rule is off', async () => {
      const counting = await createTenant(storage, { project: { skipAssets: false } });
      const countingDrain = await createDrain(counting, { kind: 'ndjson' });
      const body = [JSON.stringify({ path: '/assets/app.js', ip: '203.0.113.10' }), JSON.stringify({ path: '/guides/page', ip: '203.0.113.10' })].join('\n');
      const response = await send(countingDrain, body, { authorization: `Bearer ${countingDrain.secret}` });
      expect(response.json()).toMatchObject({ accepted: 2, skipped: 0 });
      expect(await storedEvents(counting)).toBe(2);
    });

    it('answers a failed commit with 5xx, and the retry stores what was missing without counting the rest twice', async () => {
      // Two commits' worth of events (10,000 per commit); the second commit fails once.
      const lines = Array.from({ length: 12_000 }, (_, index) => JSON.stringify({ path: `/retry/${index % 7}`, visitorId: `v${index}` })).join('\n');
      const { writer } = context.analytics;
      const write = writer.write.bind(writer);
      let calls = 0;
      writer.write = (call) => (++calls === 2 ? Promise.reject(new Error('the database went away')) : write(call));
      const before = await storedEvents(owner);
      try {
        expect((await send(drain, lines, auth)).statusCode).toBe(500);
      } finally {
        writer.write = write;
      }
      expect(await storedEvents(owner)).toBe(before + 10_000);
      const retry = await send(drain, lines, auth);
      expect(retry.statusCode).toBe(200);
      expect(retry.json()).toMatchObject({ accepted: 2_000, duplicates: 10_000 });
      expect(await storedEvents(owner)).toBe(before + 12_000);
    });

    it('refuses a gzip bomb, an oversized body, a broken gzip stream and a deeply nested array', async () => {
      const bomb = gzipSync(Buffer.alloc(50 * limit));
      expect(bomb.length).toBeLessThan(limit);
      expect((await send(drain, bomb, { ...auth, 'content-encoding': 'gzip' })).statusCode).toBe(413);
      expect((await send(drain, Buffer.alloc(limit + 1, 0x20), auth)).statusCode).toBe(413);
      expect((await send(drain, Buffer.from([0x1f, 0x8b, 1, 2, 3]), { ...auth, 'content-encoding': 'gzip' })).statusCode).toBe(400);
      expect((await send(drain, '['.repeat(10_000), auth)).statusCode).toBe(400);
      // Without the secret, nothing is even decompressed.
      expect((await send(drain, bomb, { 'content-encoding': 'gzip' })).statusCode).toBe(401);
    });
  });
});
