import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prepareAll, storeEvents } from '../../src/analytics/ingest/ingest.ts';
import type { AppContext } from '../../src/http/context.ts';
import type { Storage } from '../../src/storage/dialect.ts';
import { createTenant, testApp, testContext, type Tenant } from '../support/app.ts';
import { testDatabases } from '../support/storage.ts';
import { signIn, type SignedIn } from './session.ts';

const day = '2026-07-01';
const start = Date.parse(`${day}T00:00:00Z`);
const firefox = 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0';
const chrome = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

/** More pages than three of the export's pages of 250 rows, with names a CSV must quote. */
const paths = [...Array.from({ length: 640 }, (_, index) => `/page-${index}`), '/a,b', '/say "hi"'];

/** The CSV of the API's rows, written out here: quoted where a field holds a comma, quote or line break. */
const csv = (rows: { path: string; human: number; ai: number; total: number }[]) =>
  [
    'path,human,ai,total',
    ...rows.map((row) => [/[",\n\r]/.test(row.path) ? `"${row.path.replaceAll('"', '""')}"` : row.path, row.human, row.ai, row.total].join(',')),
  ]
    .join('\n')
    .concat('\n');

describe.each(testDatabases)('the analytics CSV export on $dialect', (database) => {
  let storage: Storage;
  let context: AppContext;
  let app: FastifyInstance;
  let tenant: Tenant;
  let session: SignedIn;
  /** Statements that read the raw events, counted while `counting` is set. */
  let rawEventReads = 0;
  let counting = false;

  beforeAll(async () => {
    storage = await database.open();
    const recorded = storage.db.withPlugin({
      transformQuery: ({ node }) => {
        if (counting && node.kind === 'SelectQueryNode' && JSON.stringify(node).includes('"analytics_events"')) rawEventReads++;
        return node;
      },
      transformResult: async ({ result }) => result,
    });
    context = testContext({ ...storage, db: recorded }, { config: { analyticsRateLimit: 100_000 } });
    app = await testApp(context);
    tenant = await createTenant(storage);
    session = await signIn(app, storage, tenant.orgId);
    // Pages with one to three visitors each (so totals tie and differ); Firefox on Linux from the US, and a few Chrome visitors from GB.
    const events = paths.flatMap((path, index) =>
      Array.from({ length: (index % 3) + 1 }, (_, visitor) => ({
        timestamp: start + index * 1000 + visitor,
        path,
        visitorId: `v${visitor}-${index % 50}`,
        ip: index % 7 === 0 ? '81.2.69.160' : '8.8.8.8',
        userAgent: index % 7 === 0 ? chrome : firefox,
      })),
    );
    const prepared = prepareAll(events);
    expect(prepared.errors).toEqual([]);
    await storeEvents(context.analytics, tenant.project, prepared.events);
  });
  afterAll(async () => {
    await app?.close();
    await storage?.close();
  });

  const filterQuery = (filters: string[]) => filters.map((filter) => `&filter=${encodeURIComponent(filter)}`).join('');
  const exportCsv = async (filters: string[]) => {
    const response = await app.inject({
      method: 'GET',
      url: `/dashboard/projects/${tenant.project.id}/analytics/visitors.csv?from=${day}&to=${day}${filterQuery(filters)}`,
      headers: { cookie: session.cookie },
    });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers['content-type']).toBe('text/csv; charset=utf-8');
    return response.body;
  };
  const apiPage = async (filters: string[], limit: number, offset: number) => {
    const range = `dateFrom=${day}&dateTo=${new Date(start + 86_400_000).toISOString().slice(0, 10)}`;
    const response = await app.inject({
      method: 'GET',
      url: `/v1/analytics/${tenant.project.id}/visitors?${range}&limit=${limit}&offset=${offset}${filterQuery(filters)}`,
      headers: tenant.auth,
    });
    expect(response.statusCode, response.body).toBe(200);
    return response.json() as { visitors: { path: string; human: number; ai: number; total: number }[]; hasMore: boolean };
  };

  it('writes every page of the API’s answer, in its order, unfiltered and under one or several filters', async () => {
    for (const filters of [[], ['country==US'], ['browser==Firefox', 'os==Linux'], ['path==/a,b']]) {
      const rows: Awaited<ReturnType<typeof apiPage>>['visitors'] = [];
      for (let offset = 0, more = true; more; offset += 250) {
        const page = await apiPage(filters, 250, offset);
        rows.push(...page.visitors);
        more = page.hasMore;
      }
      expect(rows.length, JSON.stringify(filters)).toBeGreaterThan(0);
      expect(await exportCsv(filters), JSON.stringify(filters)).toBe(csv(rows));
    }
    // The filtered export held more than two of its pages of 250 rows.
    expect((await apiPage(['browser==Firefox', 'os==Linux'], 1, 500)).visitors).toHaveLength(1);
  });

  it('counts a filtered ranking once, whatever its length: no more reads of the raw events than one page of the API', async () => {
    const filters = ['browser==Firefox', 'os==Linux'];
    counting = true;
    rawEventReads = 0;
    await exportCsv(filters);
    const exportReads = rawEventReads;
    rawEventReads = 0;
    await apiPage(filters, 1, 0);
    const pageReads = rawEventReads;
    counting = false;
    expect(pageReads).toBeGreaterThan(0);
    expect(exportReads).toBe(pageReads);
  });
});
