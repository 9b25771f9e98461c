import { Readable } from 'node:stream';
import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { foldPending } from '../../src/analytics/fold/fold.ts';
import { rebuildProject } from '../../src/analytics/fold/rebuild.ts';
import { importLog } from '../../src/analytics/importers/run.ts';
import { existingProjectKey } from '../../src/analytics/ingest/dense-ids.ts';
import { refreshReferrerIndex } from '../../src/analytics/query/breakdowns.ts';
import { RangeIndex } from '../../src/analytics/query/range-index.ts';
import { createProject } from '../../src/accounts/projects.ts';
import { prepareAll, storeEvents } from '../../src/analytics/ingest/ingest.ts';
import type { AppContext } from '../../src/http/context.ts';
import type { Storage } from '../../src/storage/dialect.ts';
import { createTenant, testApp, testContext, type Tenant } from '../support/app.ts';
import { testDatabases } from '../support/storage.ts';

/** Clients with what they are, written out here rather than asked of the classifier. */
const clients = [
  { userAgent: 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0', kind: 'browser' },
  {
    userAgent: 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)',
    kind: 'agent',
    agent: 'GPTBot',
    operator: 'OpenAI',
    category: 'training',
  },
  { userAgent: 'Mozilla/5.0 (compatible; GPTBot/1.3)', kind: 'agent', agent: 'GPTBot', operator: 'OpenAI', category: 'training' },
  {
    userAgent: 'Mozilla/5.0 (compatible; ClaudeBot/1.0; +claudebot@anthropic.com)',
    kind: 'agent',
    agent: 'ClaudeBot',
    operator: 'Anthropic',
    category: 'training',
  },
  {
    userAgent: 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; ChatGPT-User/1.0; +https://openai.com/gptbot',
    kind: 'agent',
    agent: 'ChatGPT-User',
    operator: 'OpenAI',
    category: 'assistant',
  },
  { userAgent: 'curl/8.5.0', kind: 'library' },
  { userAgent: 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)', kind: 'crawler' },
] as const;

/** Referrers and page addresses with the referring host they stand for (null: no other site). */
const origins = [
  { referrer: 'https://www.Google.com/search?q=setup', host: 'google.com' },
  { referrer: 'https://chatgpt.com/', host: 'chatgpt.com' },
  { referrer: 'https://docs.example.com/other', host: null },
  { referrer: 'https://www.docs.example.com/', host: null },
  { utm: 'perplexity.ai', host: 'perplexity.ai' },
  { referrer: 'https://news.ycombinator.com/item?id=1', utm: 'chatgpt.com', host: 'chatgpt.com' },
  { referrer: 'android-app://com.slack', host: null },
  { host: null },
] as const;
const categories: Record<string, string> = { 'google.com': 'search', 'chatgpt.com': 'ai-assistant', 'perplexity.ai': 'ai-assistant' };

const start = Date.UTC(2026, 6, 1);
const hour = 3_600_000;

interface Sent {
  hour: number;
  visitor: number;
  client: number;
  origin: number;
  markdown: boolean;
  status: number;
  verification: number;
}

function expected(events: Sent[], from: number, to: number) {
  const agents = new Map<
    string,
    {
      agent: string;
      operator: string | null;
      category: string;
      visitors: Set<number>;
      views: number;
      verifiedViews: number;
      spoofedViews: number;
      mcpViews: number;
    }
  >();
  const referrers = new Map<string, { visitors: Set<number>; views: number }>();
  const aiVisitors = new Set<number>();
  const referredVisitors = new Set<number>();
  let aiViews = 0;
  let referredViews = 0;
  for (const event of events) {
    const at = start + event.hour * hour;
    if (at < from || at >= to || event.status >= 400) continue;
    const client = clients[event.client];
    const agentOf = () => {
      if (client.kind === 'agent') return { agent: client.agent, operator: client.operator, category: client.category };
      return { agent: 'HTTP client (Markdown fetch)', operator: null, category: 'coding' };
    };
    // A browser is human even when it fetches Markdown; a library's Markdown fetch is AI.
    const ai = client.kind === 'agent' || (event.markdown && client.kind === 'library');
    const human = client.kind === 'browser';
    const entry = () => {
      const identity = agentOf();
      let row = agents.get(identity.agent);
      if (!row) agents.set(identity.agent, (row = { ...identity, visitors: new Set(), views: 0, verifiedViews: 0, spoofedViews: 0, mcpViews: 0 }));
      return row;
    };
    // A spoofed view counts nowhere; an agent's shows as the spoofing of the agent it claimed.
    if (event.verification === 2) {
      if (client.kind === 'agent') entry().spoofedViews++;
    } else if (ai) {
      const row = entry();
      row.views++;
      row.visitors.add(event.visitor);
      if (event.verification === 1) row.verifiedViews++;
      aiVisitors.add(event.visitor);
      aiViews++;
    } else if (human && origins[event.origin].host !== null) {
      const host = origins[event.origin].host!;
      let row = referrers.get(host);
      if (!row) referrers.set(host, (row = { visitors: new Set(), views: 0 }));
      row.views++;
      row.visitors.add(event.visitor);
      referredVisitors.add(event.visitor);
      referredViews++;
    }
  }
  const order =
    <T extends { views: number }>(name: (row: T) => string) =>
    (a: T, b: T) =>
      b.views - a.views || (name(a) < name(b) ? -1 : 1);
  return {
    agents: {
      totals: { visitors: aiVisitors.size, views: aiViews },
      agents: [...agents.values()].map(({ visitors, ...row }) => ({ ...row, visitors: visitors.size })).sort(order((row) => row.agent)),
    },
    referrers: {
      totals: { visitors: referredVisitors.size, views: referredViews },
      referrers: [...referrers]
        .map(([referrer, row]) => ({ referrer, category: categories[referrer] ?? 'other', visitors: row.visitors.size, views: row.views }))
        .sort(order((row) => row.referrer)),
    },
  };
}

describe.each(testDatabases)('agents, referrers and series on $dialect', (database) => {
  let storage: Storage;
  let context: AppContext;
  let app: FastifyInstance;
  beforeAll(async () => {
    storage = await database.open();
    context = testContext(storage);
    app = await testApp(context);
  });
  afterAll(async () => {
    await app.close();
    await storage.close();
  });

  const newTenant = () => createTenant(storage, { project: { trackerDomains: ['docs.example.com'] } });
  const get = (tenant: Tenant, operation: string, query: string) =>
    app.inject({ method: 'GET', url: `/v1/analytics/${tenant.project.id}/${operation}?${query}`, headers: tenant.auth });

  async function store(tenant: Tenant, events: Sent[]) {
    const prepared = prepareAll(
      events.map((event) => {
        const origin = origins[event.origin];
        const query = 'utm' in origin ? `?utm_source=${origin.utm}&ref=x` : '';
        return {
          timestamp: start + event.hour * hour,
          path: `/guide${event.markdown ? '.md' : ''}${query}`,
          visitorId: `v${event.visitor}`,
          userAgent: clients[event.client].userAgent,
          status: event.status,
          referrer: 'referrer' in origin ? origin.referrer : undefined,
        };
      }),
    );
    // Verification happens at ingestion from the request's IP or signature; here its outcome is given.
    prepared.events.forEach((event, index) => (event.verification = events[index].verification as 0 | 1 | 2));
    await storeEvents(context.analytics, tenant.project, prepared.events);
  }

  const sent = fc.record({
    hour: fc.integer({ min: 0, max: 24 * 4 - 1 }),
    visitor: fc.integer({ min: 1, max: 12 }),
    client: fc.integer({ min: 0, max: clients.length - 1 }),
    origin: fc.integer({ min: 0, max: origins.length - 1 }),
    markdown: fc.boolean(),
    status: fc.constantFrom(200, 200, 304, 404),
    verification: fc.constantFrom(0, 0, 1, 2),
  });

  it('counts agents and referrers exactly as a brute force over the events, folded, pending, rebuilt and over partial days', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(sent, { maxLength: 60 }),
        fc.array(sent, { maxLength: 15 }),
        fc.integer({ min: 0, max: 30 }),
        async (folded, pending, startHour) => {
          const tenant = await newTenant();
          await store(tenant, folded);
          const key = await existingProjectKey(storage.db, context.analytics.ids, tenant.project.id);
          if (key !== undefined) await foldPending(storage, key);
          await store(tenant, pending);
          const from = start + startHour * hour;
          const to = start + 4 * 24 * hour;
          const range = `dateFrom=${new Date(from).toISOString()}&dateTo=${new Date(to).toISOString().slice(0, 10)}&limit=250`;
          const want = expected([...folded, ...pending], from, to);
          const check = async () => {
            expect((await get(tenant, 'agents', range)).json()).toEqual({ ...want.agents, hasMore: false });
            expect((await get(tenant, 'referrers', range)).json()).toEqual({ ...want.referrers, hasMore: false });
          };
          await check();
          await rebuildProject(context.analytics, tenant.project.id);
          await check();
          // Whole days with the referrers index built (and a new version, so nothing cached answers): the index's answer.
          const projectKey = await existingProjectKey(storage.db, context.analytics.ids, tenant.project.id);
          if (projectKey === undefined) return;
          await foldPending(storage, projectKey);
          await refreshReferrerIndex(context.analytics, projectKey, 400);
          await storage.db
            .updateTable('analytics_projects')
            .set((eb) => ({ version: eb('version', '+', 1) }))
            .where('project_key', '=', projectKey)
            .execute();
          const wholeDays = `dateFrom=2026-07-01&dateTo=2026-07-05&limit=250`;
          const ranked = vi.spyOn(RangeIndex.prototype, 'rankClass');
          expect((await get(tenant, 'referrers', wholeDays)).json()).toEqual({ ...expected([...folded, ...pending], start, to).referrers, hasMore: false });
          if (context.analytics.caches.dimensionIndex(`${projectKey}:referrers`) !== undefined)
            expect(ranked, 'whole days are the referrers index’s cells').toHaveBeenCalled();
          ranked.mockRestore();
        },
      ),
      { numRuns: 12 },
    );
  });

  it('pages in order, filters agents by category and answers 400s, 404s and the shared limit', async () => {
    const tenant = await newTenant();
    const events: Sent[] = [];
    for (let index = 0; index < 30; index++)
      events.push({ hour: index, visitor: index % 7, client: [1, 3, 5][index % 3], origin: 0, markdown: true, status: 200, verification: 0 });
    for (let index = 0; index < 20; index++)
      events.push({ hour: index, visitor: index % 5, client: 0, origin: index % 2 === 0 ? 1 : 4, markdown: false, status: 200, verification: 0 });
    await store(tenant, events);
    const want = expected(events, start, start + 2 * 24 * hour);
    const range = 'dateFrom=2026-07-01&dateTo=2026-07-03';
    const agents = want.agents.agents;
    expect((await get(tenant, 'agents', `${range}&limit=1`)).json()).toEqual({ totals: want.agents.totals, agents: agents.slice(0, 1), hasMore: true });
    expect((await get(tenant, 'agents', `${range}&limit=1&offset=2`)).json()).toEqual({
      totals: want.agents.totals,
      agents: agents.slice(2, 3),
      hasMore: false,
    });
    expect((await get(tenant, 'agents', `${range}&offset=3`)).json()).toEqual({ totals: want.agents.totals, agents: [], hasMore: false });
    const coding = (await get(tenant, 'agents', `${range}&category=coding`)).json();
    expect(coding.agents.map((row: { agent: string }) => row.agent)).toEqual(['HTTP client (Markdown fetch)']);
    expect(coding.totals.views).toBe(10);
    expect((await get(tenant, 'referrers', `${range}&limit=1&offset=1`)).json()).toEqual({
      totals: want.referrers.totals,
      referrers: want.referrers.referrers.slice(1, 2),
      hasMore: false,
    });

    for (const operation of ['agents', 'referrers', 'series']) {
      for (const query of ['dateFrom=2026-07-03&dateTo=2026-07-01', 'dateFrom=yesterday', 'dateTo=2026-02-30', 'unknown=1'])
        expect((await get(tenant, operation, query)).statusCode).toBe(400);
    }
    for (const operation of ['agents', 'referrers'])
      for (const query of ['limit=0', 'limit=251', 'offset=-1', 'limit=1.5']) expect((await get(tenant, operation, `${range}&${query}`)).statusCode).toBe(400);
    expect((await get(tenant, 'agents', `${range}&category=robots`)).statusCode).toBe(400);
    expect((await get(tenant, 'series', `${range}&measure=sessions`)).statusCode).toBe(400);
    // 400 days is the most; a range that starts inside a day overlaps that day too.
    expect((await get(tenant, 'series', 'dateFrom=2025-01-01&dateTo=2026-02-05')).json().series).toHaveLength(400);
    expect((await get(tenant, 'series', 'dateFrom=2025-01-01&dateTo=2026-02-06')).json()).toMatchObject({ code: 'invalid_request' });
    expect((await get(tenant, 'series', 'dateFrom=2024-12-31T12:00:00Z&dateTo=2026-02-05')).statusCode).toBe(400);

    const stranger = await newTenant();
    for (const operation of ['agents', 'referrers', 'series']) {
      const response = await app.inject({ method: 'GET', url: `/v1/analytics/${tenant.project.id}/${operation}?${range}`, headers: stranger.auth });
      expect(response.statusCode).toBe(404);
      expect(JSON.stringify(response.json())).not.toContain('GPTBot');
    }
    const unauthenticated = await app.inject({ method: 'GET', url: `/v1/analytics/${tenant.project.id}/agents?${range}` });
    expect(unauthenticated.statusCode).toBe(401);
  });

  it('serves the daily series, zeros included, as one /views query per day', async () => {
    const tenant = await newTenant();
    await store(tenant, [
      { hour: 1, visitor: 1, client: 0, origin: 7, markdown: false, status: 200, verification: 0 },
      { hour: 2, visitor: 1, client: 1, origin: 7, markdown: false, status: 200, verification: 0 },
      { hour: 50, visitor: 2, client: 0, origin: 7, markdown: false, status: 200, verification: 0 },
      { hour: 51, visitor: 2, client: 0, origin: 7, markdown: false, status: 200, verification: 0 },
    ]);
    const visitors = (await get(tenant, 'series', 'dateFrom=2026-07-01&dateTo=2026-07-04')).json();
    expect(visitors).toEqual({
      measure: 'visitors',
      interval: 'day',
      series: [
        // The same visitor id seen as human and as AI counts once in total.
        { date: '2026-07-01', human: 1, ai: 1, total: 1 },
        { date: '2026-07-02', human: 0, ai: 0, total: 0 },
        { date: '2026-07-03', human: 1, ai: 0, total: 1 },
      ],
    });
    const views = (await get(tenant, 'series', 'dateFrom=2026-07-01T12:00:00Z&dateTo=2026-07-03T12:00:00Z&measure=views')).json();
    expect(views.series.map((entry: { date: string; total: number }) => [entry.date, entry.total])).toEqual([
      ['2026-07-01', 0],
      ['2026-07-02', 0],
      ['2026-07-03', 2],
    ]);
  });

  it('takes the referrer from utm_source on the tracker beacon, and never counts the own site', async () => {
    const tenant = await newTenant();
    const beacon = (url: string, referrer?: string) =>
      app.inject({
        method: 'POST',
        url: '/v1/collect',
        headers: { 'content-type': 'text/plain', origin: 'https://docs.example.com', 'user-agent': clients[0].userAgent },
        payload: JSON.stringify({ project: tenant.project.id, url, visitorId: 'reader-1', referrer }),
      });
    expect((await beacon('https://docs.example.com/guide?utm_source=chatgpt.com')).statusCode).toBe(204);
    expect((await beacon('https://docs.example.com/other', 'https://docs.example.com/guide')).statusCode).toBe(204);
    expect((await beacon('https://docs.example.com/third', 'https://www.reddit.com/r/x')).statusCode).toBe(204);
    const today = new Date().toISOString().slice(0, 10);
    const tomorrow = new Date(Date.now() + 24 * hour).toISOString().slice(0, 10);
    expect((await get(tenant, 'referrers', `dateFrom=${today}&dateTo=${tomorrow}`)).json()).toEqual({
      totals: { visitors: 1, views: 2 },
      referrers: [
        { referrer: 'chatgpt.com', category: 'ai-assistant', visitors: 1, views: 1 },
        { referrer: 'reddit.com', category: 'social', visitors: 1, views: 1 },
      ],
      hasMore: false,
    });
  });

  it('imports logs without counting the own site as a referrer', async () => {
    const tenant = await newTenant();
    const line = (ip: string, path: string, referrer: string) =>
      `${ip} - - [02/Jul/2026:10:00:00 +0000] "GET ${path} HTTP/1.1" 200 512 "${referrer}" "${clients[0].userAgent}"`;
    const log = [
      line('203.0.113.1', '/guide', 'https://docs.example.com/'),
      line('203.0.113.1', '/other', 'https://www.docs.example.com/guide'),
      line('203.0.113.2', '/guide?utm_source=claude.ai', '-'),
      line('203.0.113.3', '/guide', 'https://duckduckgo.com/'),
    ].join('\n');
    await importLog(context.analytics, tenant.project, 'combined', Readable.from([Buffer.from(`${log}\n`)]));
    expect((await get(tenant, 'referrers', 'dateFrom=2026-07-02&dateTo=2026-07-03')).json()).toEqual({
      totals: { visitors: 2, views: 2 },
      referrers: [
        { referrer: 'claude.ai', category: 'ai-assistant', visitors: 1, views: 1 },
        { referrer: 'duckduckgo.com', category: 'search', visitors: 1, views: 1 },
      ],
      hasMore: false,
    });
  });
});

describe.each(testDatabases)('the analytics limit on $dialect', (database) => {
  it('is shared by visitors, agents, referrers and series', async () => {
    const storage = await database.open();
    const app = await testApp(testContext(storage, { config: { analyticsRateLimit: 4 } }));
    try {
      const tenant = await createTenant(storage);
      const sibling = (await createProject(storage.db, tenant.orgId, { name: 'Other docs', repository: 'https://github.com/acme/other', ref: 'main' })).id;
      const statuses = [];
      for (const [project, operation] of [
        [tenant.project.id, 'visitors'],
        [tenant.project.id, 'agents'],
        [sibling, 'referrers'],
        [tenant.project.id, 'series'],
        [sibling, 'agents'],
      ]) {
        statuses.push((await app.inject({ method: 'GET', url: `/v1/analytics/${project}/${operation}`, headers: tenant.auth })).statusCode);
      }
      expect(statuses).toEqual([200, 200, 200, 200, 429]);
    } finally {
      await app.close();
      await storage.close();
    }
  });
});
