import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import { existingProjectKey } from '../../src/analytics/ingest/dense-ids.ts';
import { refreshIndex } from '../../src/analytics/query/range-index-refresh.ts';
import { foldPending } from '../../src/analytics/fold/fold.ts';
import type { AppContext } from '../../src/http/context.ts';
import type { Storage } from '../../src/storage/dialect.ts';
import { createTenant, testApp, testContext, type Tenant } from '../support/app.ts';
import { testDatabases } from '../support/storage.ts';

const agents = {
  human: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15',
  ai: 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ClaudeBot/1.0; +claudebot@anthropic.com)',
  bot: 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
  library: 'curl/8.5.0',
};
const start = Date.UTC(2026, 4, 10);
const hour = 3_600_000;

interface Generated {
  visitor: number;
  path: string;
  agent: keyof typeof agents;
  markdown: boolean;
  at: number;
  status: number | undefined;
}

const eventArbitrary = fc.record({
  visitor: fc.integer({ min: 0, max: 12 }),
  path: fc.constantFrom('/', '/a', '/b', '/guides/c', '/d', '/e', '/f'),
  agent: fc.constantFrom<keyof typeof agents>('human', 'human', 'ai', 'bot', 'library'),
  markdown: fc.boolean(),
  at: fc.integer({ min: start, max: start + 6 * 24 * hour - 1 }),
  status: fc.constantFrom(undefined, 200, 304, 404, 500),
});

const boundArbitrary = fc.oneof(
  fc.integer({ min: -1, max: 7 }).map((day) => ({ text: new Date(start + day * 24 * hour).toISOString().slice(0, 10), at: start + day * 24 * hour })),
  fc.integer({ min: start - hour, max: start + 7 * 24 * hour }).map((at) => ({ text: new Date(at).toISOString(), at })),
);

/** What the endpoint must answer, computed the obvious way. */
function bruteForce(events: Generated[], from: number, to: number) {
  const perPath = new Map<string, { human: Set<number>; ai: Set<number>; views: [number, number] }>();
  const site = { human: new Set<number>(), ai: new Set<number>(), views: [0, 0] };
  for (const event of events) {
    if (event.at < from || event.at >= to || (event.status !== undefined && event.status >= 400)) continue;
    // A browser's Markdown fetch is human; a library's is AI; a search engine's counts nowhere.
    const viewClass = event.agent === 'ai' || (event.markdown && event.agent === 'library') ? 'ai' : event.agent === 'human' ? 'human' : null;
    if (!viewClass) continue;
    // The Markdown copy of the root page is fetched as /index.md, which counts for /index.
    const path = event.markdown && event.path === '/' ? '/index' : event.path;
    let entry = perPath.get(path);
    if (!entry) perPath.set(path, (entry = { human: new Set(), ai: new Set(), views: [0, 0] }));
    entry[viewClass].add(event.visitor);
    site[viewClass].add(event.visitor);
    entry.views[viewClass === 'human' ? 0 : 1]++;
    site.views[viewClass === 'human' ? 0 : 1]++;
  }
  const union = (a: Set<number>, b: Set<number>) => new Set([...a, ...b]).size;
  const order = (rows: { path: string; total: number }[]) => rows.sort((a, b) => b.total - a.total || (a.path < b.path ? -1 : 1));
  return {
    visitors: {
      totals: { human: site.human.size, ai: site.ai.size, total: union(site.human, site.ai) },
      rows: order([...perPath].map(([path, entry]) => ({ path, human: entry.human.size, ai: entry.ai.size, total: union(entry.human, entry.ai) }))),
    },
    views: {
      totals: { human: site.views[0], ai: site.views[1], total: site.views[0] + site.views[1] },
      rows: order([...perPath].map(([path, entry]) => ({ path, human: entry.views[0], ai: entry.views[1], total: entry.views[0] + entry.views[1] }))),
    },
  };
}

describe.each(testDatabases)('exact counts on $dialect (property)', (database) => {
  let storage: Storage;
  let context: AppContext;
  let app: FastifyInstance;

  beforeAll(async () => {
    storage = await database.open();
    context = testContext(storage, { config: { analyticsRateLimit: 1_000_000 } });
    app = await testApp(context);
  });
  afterAll(async () => {
    await app.close();
    await storage.close();
  });

  async function send(tenant: Tenant, events: Generated[]) {
    const payload = {
      events: events.map((event) => ({
        timestamp: new Date(event.at).toISOString(),
        path: event.markdown ? `${event.path === '/' ? '/index' : event.path}.md` : event.path,
        visitorId: `visitor-${event.visitor}`,
        userAgent: agents[event.agent],
        ...(event.status === undefined ? {} : { status: event.status }),
      })),
    };
    const response = await app.inject({ method: 'POST', url: `/v1/analytics/${tenant.project.id}/events`, headers: tenant.auth, payload });
    expect(response.json()).toMatchObject({ accepted: events.length, rejected: 0 });
  }

  async function allPages(tenant: Tenant, measure: 'visitors' | 'views', from: string, to: string, limit: number) {
    const rows: unknown[] = [];
    let totals: unknown;
    for (let offset = 0; ; offset += limit) {
      const query = new URLSearchParams({ dateFrom: from, dateTo: to, limit: String(limit), offset: String(offset) });
      const response = await app.inject({ method: 'GET', url: `/v1/analytics/${tenant.project.id}/${measure}?${query}`, headers: tenant.auth });
      expect(response.statusCode).toBe(200);
      const body = response.json();
      totals = body.totals;
      rows.push(...body[measure]);
      if (!body.hasMore) return { totals, rows };
      expect(body[measure]).toHaveLength(limit);
    }
  }

  it('every page, concatenated, and the totals equal a brute-force count', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(eventArbitrary, { minLength: 0, maxLength: 60 }),
        fc.array(eventArbitrary, { maxLength: 30 }),
        boundArbitrary,
        boundArbitrary,
        fc.integer({ min: 1, max: 4 }),
        fc.boolean(),
        fc.boolean(),
        async (early, late, first, second, limit, fold, foldLate) => {
          const [from, to] = first.at <= second.at ? [first, second] : [second, first];
          fc.pre(from.at < to.at);
          // Views (dates, paths, whatever spelling of a path) are new each run: a new project per run.
          const tenant = await createTenant(storage);
          await send(tenant, early);
          // Folded and indexed: whole-day ranges are answered by the range index.
          const settle = async () => {
            const key = (await existingProjectKey(storage.db, context.analytics.ids, tenant.project.id)) ?? 0;
            await foldPending(storage, key);
            await refreshIndex(context.analytics, key);
          };
          if (fold) await settle();
          const before = bruteForce(early, from.at, to.at);
          expect(await allPages(tenant, 'visitors', from.text, to.text, limit)).toEqual({ totals: before.visitors.totals, rows: before.visitors.rows });
          // Late, out-of-order events must show up in the same range: the cached answer is replaced.
          await send(tenant, late);
          if (foldLate) await settle();
          const after = bruteForce([...early, ...late], from.at, to.at);
          expect(await allPages(tenant, 'visitors', from.text, to.text, limit)).toEqual({ totals: after.visitors.totals, rows: after.visitors.rows });
          expect(await allPages(tenant, 'views', from.text, to.text, limit)).toEqual({ totals: after.views.totals, rows: after.views.rows });
        },
      ),
      { numRuns: 40 },
    );
  });
});
