import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { createJob } from '../../src/jobs/service.ts';
import type { AppContext } from '../../src/http/context.ts';
import type { Storage } from '../../src/storage/dialect.ts';
import { createTenant, testApp, testContext, type Tenant } from '../support/app.ts';
import { testDatabases } from '../support/storage.ts';

/**
 * Random requests against every API route: whatever arrives, the answer is never a 5xx. On both
 * dialects: PostgreSQL refuses texts SQLite stores (a NUL), so a 500 can hide on one of them only.
 */
describe.each(testDatabases)('hostile input on $dialect', (database) => {
  let storage: Storage;
  let context: AppContext;
  let app: FastifyInstance;
  let tenant: Tenant;
  let jobId: string;

  beforeAll(async () => {
    storage = await database.open();
    context = testContext(storage, { config: { jobRateLimit: 1_000_000, analyticsRateLimit: 1_000_000 } });
    app = await testApp(context);
    tenant = await createTenant(storage);
    jobId = (await createJob(context, tenant.project, { prompt: 'seed' })).job.id;
  });
  afterAll(async () => {
    await app.close();
    await storage.close();
  });

  /** Any code point, a lone surrogate included, and NUL more often than chance would give it. */
  const anyText = (maxLength: number) =>
    fc.oneof(fc.string({ maxLength }), fc.string({ unit: 'binary', maxLength }), fc.constantFrom('\u0000', 'a\ud800b', 'x\u0000'));
  const junk = fc.oneof(anyText(30), fc.constantFrom('..', '%00', '%2e%2e', "' or 1=1--", 'job_00000000000000000000000000', 'prj_'));
  const routes = [
    '/v2/agent/{p}/job',
    '/v2/agent/{p}/job/{j}',
    '/v2/agent/{p}/job/{j}/message',
    '/v2/agent/{p}/job/{j}/archive',
    '/v2/agent/{p}/job/{j}/messages',
    '/v2/agent/{p}/jobs',
    '/v1/analytics/{p}/events',
    '/v1/analytics/{p}/visitors',
    '/v1/analytics/{p}/views',
    '/v1/analytics/{p}/series',
    '/v1/analytics/{p}/breakdown',
    '/v1/analytics/{p}/agents',
    '/v1/analytics/{p}/referrers',
    '/v1/analytics/{p}/feedback',
    '/v1/analytics/{p}/feedback/by-page',
    '/v1/analytics/{p}/searches',
    '/v1/analytics/{p}/gaps',
    '/v1/docs/{p}/pages',
    '/v1/docs/{p}/search',
  ];
  const queryValue = fc.oneof(
    anyText(12),
    fc.integer().map(String),
    fc.double().map(String),
    fc.constantFrom('2026-13-01', '2026-11-01', '2026-11-01T10:00:00+02:00', '-1', '0', '251', 'active'),
  );
  const query = fc.dictionary(
    fc.constantFrom('limit', 'offset', 'dateFrom', 'dateTo', 'cursor', 'status', 'filter', 'property', 'class', 'compare', 'q', 'query', 'x'),
    queryValue,
    { maxKeys: 3 },
  );
  const url = fc
    .tuple(fc.constantFrom(...routes), fc.oneof(fc.constant('own'), junk), fc.oneof(fc.constant('job'), junk), query)
    .map(([route, project, job, parameters]) => {
      const path = route
        .replace('{p}', project === 'own' ? tenant.project.id : encodeURIComponent(project.toWellFormed()))
        .replace('{j}', job === 'job' ? jobId : encodeURIComponent(job.toWellFormed()));
      return `${path}?${new URLSearchParams(parameters).toString()}`;
    });
  const body = fc.oneof(
    anyText(200),
    fc.json({ maxDepth: 3 }),
    fc.record({ prompt: fc.oneof(fc.string({ maxLength: 40 }), fc.integer(), fc.constant(null)) }).map((value) => JSON.stringify(value)),
    fc
      .array(
        fc.record(
          {
            path: fc.oneof(
              anyText(20),
              fc.constant('/a'),
              anyText(10).map((text) => `/${text}`),
            ),
            timestamp: fc.oneof(fc.string({ maxLength: 20 }), fc.integer()),
            userAgent: anyText(20),
            referrer: anyText(20),
            visitorId: anyText(10),
          },
          { requiredKeys: [] },
        ),
        { maxLength: 5 },
      )
      .map((events) => JSON.stringify({ events })),
    fc.constant(''),
  );
  const contentType = fc.constantFrom('application/json', 'application/x-ndjson', 'text/plain', 'application/json; charset=utf-16', '');

  it('answers every random request with a 2xx or a 4xx and the error body', async () => {
    const seen = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('GET', 'POST'), url, body, contentType, fc.nat(9), async (method, target, payload, type, authorization) => {
        const headers: Record<string, string> = authorization > 0 ? { ...tenant.auth } : {};
        if (type) headers['content-type'] = type;
        const response = await app.inject({ method: method as 'GET', url: target, headers, payload: method === 'GET' ? undefined : payload });
        seen.set(response.statusCode, (seen.get(response.statusCode) ?? 0) + 1);
        expect(response.statusCode, `${method} ${target}`).toBeLessThan(500);
        if (response.statusCode >= 400) expect(response.json()).toMatchObject({ error: expect.any(String), code: expect.any(String) });
      }),
      { numRuns: 400 },
    );
    // The generator must reach past routing and authentication, or the property proves little.
    expect([...seen.keys()].filter((status) => status < 300).length).toBeGreaterThan(0);
    expect(seen.get(400) ?? 0).toBeGreaterThan(40);
  });
});
