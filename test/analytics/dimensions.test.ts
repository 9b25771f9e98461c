import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { foldProject } from '../../src/analytics/fold/fold.ts';
import { rebuildProject } from '../../src/analytics/fold/rebuild.ts';
import { refreshIndex } from '../../src/analytics/query/range-index-refresh.ts';
import { refreshValuePages } from '../../src/analytics/query/value-pages-build.ts';
import { refreshDimensionIndexes } from '../../src/analytics/query/dimension-days.ts';
import { RangeIndex } from '../../src/analytics/query/range-index.ts';
import type { ValueIndexes } from '../../src/analytics/query/value-index.ts';
import { refreshValueIndexes } from '../../src/analytics/query/value-index-build.ts';
import { prepareAll, storeEvents } from '../../src/analytics/ingest/ingest.ts';
import type { AppContext } from '../../src/http/context.ts';
import type { Storage } from '../../src/storage/dialect.ts';
import { createTenant, testApp, testContext, type Tenant } from '../support/app.ts';
import { testDatabases } from '../support/storage.ts';

interface Client {
  userAgent: string;
  browser?: string;
  os?: string;
  device?: string;
  ai?: boolean;
  agent?: string;
  category?: string;
  excluded?: boolean;
}

/** Clients with what they are, written out here rather than asked of the parser or classifier. */
const clients: Client[] = [
  {
    userAgent: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
    browser: 'Chrome',
    os: 'Windows',
    device: 'desktop',
    ai: false,
  },
  {
    userAgent: 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1',
    browser: 'Safari',
    os: 'iOS',
    device: 'mobile',
    ai: false,
  },
  {
    userAgent: 'Mozilla/5.0 (iPad; CPU OS 16_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/16.0 Mobile/15E148 Safari/604.1',
    browser: 'Safari',
    os: 'iOS',
    device: 'tablet',
    ai: false,
  },
  {
    userAgent: 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)',
    browser: 'GPTBot',
    os: 'Unknown',
    device: 'bot',
    ai: true,
    agent: 'GPTBot',
    category: 'training',
  },
  { userAgent: 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0', browser: 'Firefox', os: 'Linux', device: 'desktop', ai: false },
  // A search crawler: excluded, counted nowhere, but its views still belong to its visitor's visits.
  { userAgent: 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)', excluded: true },
];

/** Addresses and their countries, from the shipped database's published ranges (a private address has none). */
const addresses = [
  { ip: '8.8.8.8', country: 'US' },
  { ip: '81.2.69.160', country: 'GB' },
  { ip: '1.0.1.5', country: 'CN' },
  { ip: '10.0.0.1', country: null },
] as const;

/** Referrers and the source host they stand for (null: not another site). */
const referrers = [
  { referrer: 'https://www.google.com/search?q=x', host: 'google.com' },
  { referrer: 'https://chatgpt.com/', host: 'chatgpt.com' },
  { referrer: 'https://docs.example.com/other', host: null },
  { referrer: undefined, host: null },
] as const;

const paths = ['/', '/guide', '/api', '/faq'];
const minute = 60_000;
const start = Date.UTC(2026, 6, 1);

interface Sent {
  at: number;
  visitor: number;
  client: number;
  address: number;
  referrer: number;
  path: number;
  status: number;
}

/** A fixed pseudo-random data set: visitors who come back within and after 30 minutes, over four days. */
function makeEvents(count: number, seed: number): Sent[] {
  let state = seed;
  const next = (n: number) => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state % n;
  };
  const events: Sent[] = [];
  let at = start;
  for (let index = 0; index < count; index++) {
    at += [1, 5, 20, 40, 90, 300][next(6)] * minute;
    const visitor = next(15);
    // A visitor keeps their client and address (as a person would), mostly.
    const client = next(10) < 8 ? visitor % clients.length : next(clients.length);
    events.push({
      at,
      visitor,
      client,
      address: visitor % addresses.length,
      referrer: next(referrers.length),
      path: next(paths.length),
      status: next(12) === 0 ? 404 : 200,
    });
  }
  return events;
}

type Filter = [string, string];

/** What the operations must answer, counted here by brute force over the sent events. */
function truth(events: Sent[], from: number, to: number, filters: Filter[]) {
  // Visits over every event (any class or status), per visitor in time order.
  const byVisitor = new Map<number, Sent[]>();
  for (const event of [...events].sort((a, b) => a.at - b.at)) {
    if (!byVisitor.has(event.visitor)) byVisitor.set(event.visitor, []);
    byVisitor.get(event.visitor)!.push(event);
  }
  const visit = new Map<Sent, { entry: boolean; source: string }>();
  for (const list of byVisitor.values()) {
    let last = -Infinity;
    let source = '';
    for (const event of list) {
      const entry = event.at - last > 30 * minute;
      if (entry) source = referrers[event.referrer].host ?? 'Direct / None';
      visit.set(event, { entry, source });
      last = event.at;
    }
  }
  const counted = events
    .filter((event) => event.at >= from && event.at < to && event.status < 400 && !clients[event.client].excluded)
    .map((event) => {
      const client = clients[event.client];
      return {
        event,
        visitor: event.visitor,
        ai: client.ai === true,
        day: Math.floor(event.at / 86_400_000),
        values: {
          path: paths[event.path],
          country: addresses[event.address].country,
          browser: client.browser!,
          os: client.os!,
          device: client.device!,
          source: visit.get(event)!.source,
          agent: client.agent ?? null,
          category: client.category ?? null,
          entry_page: visit.get(event)!.entry ? paths[event.path] : null,
        } as Record<string, string | null>,
      };
    })
    .filter((view) => filters.every(([property, value]) => view.values[property] === value));
  return counted;
}

type Views = ReturnType<typeof truth>;

function classCounts(views: Views, measure: 'visitors' | 'views') {
  const human = views.filter((view) => !view.ai);
  const ai = views.filter((view) => view.ai);
  if (measure === 'views') return { human: human.length, ai: ai.length, total: views.length };
  const distinct = (list: Views) => new Set(list.map((view) => view.visitor)).size;
  return { human: distinct(human), ai: distinct(ai), total: distinct(views) };
}

function expectedPage(views: Views, measure: 'visitors' | 'views') {
  const byPath = new Map<string, Views>();
  for (const view of views) {
    const path = view.values.path!;
    if (!byPath.has(path)) byPath.set(path, []);
    byPath.get(path)!.push(view);
  }
  const rows = [...byPath].map(([path, list]) => ({ path, ...classCounts(list, measure) })).sort((a, b) => b.total - a.total || (a.path < b.path ? -1 : 1));
  return { totals: classCounts(views, measure), rows };
}

function expectedBreakdown(views: Views, property: string, viewClass: 'human' | 'ai' | 'all') {
  let list = views.filter((view) => viewClass === 'all' || view.ai === (viewClass === 'ai'));
  if (property === 'entry_page') list = list.filter((view) => view.values.entry_page !== null);
  const groups = new Map<string, Views>();
  for (const view of list) {
    const value = view.values[property];
    if (value === null) continue;
    if (!groups.has(value)) groups.set(value, []);
    groups.get(value)!.push(view);
  }
  return {
    totals: { visitors: new Set(list.map((view) => view.visitor)).size, views: list.length },
    results: [...groups]
      .map(([value, group]) => ({ value, visitors: new Set(group.map((view) => view.visitor)).size, views: group.length }))
      .sort((a, b) => b.visitors - a.visitors || (a.value < b.value ? -1 : 1)),
    hasMore: false,
  };
}

const filterSets: Filter[][] = [
  [],
  [['country', 'US']],
  [['country', 'GB']],
  [['source', 'google.com']],
  [['source', 'Direct / None']],
  [['path', '/guide']],
  [['path', '/']],
  [['path', '/nowhere']],
  [
    ['path', '/guide'],
    ['path', '/guide'],
  ],
  [
    ['browser', 'Safari'],
    ['device', 'mobile'],
  ],
  [['device', 'bot']],
  [['agent', 'GPTBot']],
  [['category', 'training']],
  [
    ['country', 'US'],
    ['path', '/api'],
  ],
  [
    ['os', 'iOS'],
    ['source', 'chatgpt.com'],
  ],
  [['country', 'ZZ']],
];

const query = (filters: Filter[]) => filters.map(([property, value]) => `&filter=${encodeURIComponent(`${property}==${value}`)}`).join('');

describe.each(testDatabases)('dimensions, filters and comparisons on $dialect', (database) => {
  let storage: Storage;
  let context: AppContext;
  let app: FastifyInstance;
  let tenant: Tenant;
  const events = makeEvents(400, 7);
  const from = start;
  const to = start + 4 * 86_400_000;

  beforeAll(async () => {
    storage = await database.open();
    context = testContext(storage, { config: { analyticsRateLimit: 100_000 } });
    app = await testApp(context);
    tenant = await createTenant(storage, { project: { trackerDomains: ['docs.example.com'] } });
    // In three calls, in time order, as a tracker would send them.
    for (let part = 0; part < 3; part++) {
      const slice = events.slice((part * events.length) / 3, ((part + 1) * events.length) / 3);
      const prepared = prepareAll(
        slice.map((event) => ({
          timestamp: event.at,
          path: paths[event.path],
          visitorId: `v${event.visitor}`,
          ip: addresses[event.address].ip,
          userAgent: clients[event.client].userAgent,
          referrer: referrers[event.referrer].referrer,
          status: event.status,
        })),
      );
      expect(prepared.errors).toEqual([]);
      await storeEvents(context.analytics, tenant.project, prepared.events);
    }
  });
  afterAll(async () => {
    await app?.close();
    await storage?.close();
  });

  const get = async (operation: string, parameters: string) => {
    const response = await app.inject({ method: 'GET', url: `/v1/analytics/${tenant.project.id}/${operation}?${parameters}`, headers: tenant.auth });
    expect(response.statusCode, response.body).toBe(200);
    return response.json();
  };
  const range = (start: number, end: number) => `dateFrom=${new Date(start).toISOString()}&dateTo=${new Date(end).toISOString()}`;

  it('breaks views down by every dimension and class exactly as a brute force over the events', async () => {
    // A range with partial days at both ends, and the whole four days.
    for (const [start, end] of [
      [from, to],
      [from + 13 * 3_600_000, to - 7 * 3_600_000],
    ]) {
      for (const property of ['country', 'browser', 'os', 'device', 'source', 'entry_page'])
        for (const viewClass of ['human', 'ai', 'all'] as const) {
          const answer = await get('breakdown', `${range(start, end)}&property=${property}&class=${viewClass}&limit=250`);
          expect(answer, `${property} ${viewClass}`).toEqual(expectedBreakdown(truth(events, start, end, []), property, viewClass));
        }
    }
  });

  it('filters visitors, views, series, breakdowns, referrers and agents exactly, each filter and combinations', async () => {
    for (const filters of filterSets) {
      const views = truth(events, from, to, filters);
      const label = JSON.stringify(filters);
      for (const measure of ['visitors', 'views'] as const) {
        const answer = await get(measure, `${range(from, to)}&limit=250${query(filters)}`);
        const expected = expectedPage(views, measure);
        expect({ totals: answer.totals, rows: answer[measure] }, `${measure} ${label}`).toEqual(expected);
      }
      const series = await get('series', `${range(from, to)}&measure=visitors${query(filters)}`);
      for (const day of series.series) {
        const dayStart = Date.parse(`${day.date}T00:00:00Z`);
        const expected = classCounts(
          views.filter((view) => view.event.at >= dayStart && view.event.at < dayStart + 86_400_000),
          'visitors',
        );
        expect({ human: day.human, ai: day.ai, total: day.total }, `series ${day.date} ${label}`).toEqual(expected);
      }
      expect(await get('breakdown', `${range(from, to)}&property=source&limit=250${query(filters)}`), `source ${label}`).toEqual(
        expectedBreakdown(views, 'source', 'all'),
      );
      const referrerViews = views.filter((view) => !view.ai && referrers[view.event.referrer].host !== null);
      const referrerAnswer = await get('referrers', `${range(from, to)}&limit=250${query(filters)}`);
      expect(referrerAnswer.totals, `referrers ${label}`).toEqual({
        visitors: new Set(referrerViews.map((view) => view.visitor)).size,
        views: referrerViews.length,
      });
      const aiViews = views.filter((view) => view.ai);
      const agentAnswer = await get('agents', `${range(from, to)}&limit=250${query(filters)}`);
      expect(agentAnswer.totals, `agents ${label}`).toEqual({ visitors: new Set(aiViews.map((view) => view.visitor)).size, views: aiViews.length });
    }
  });

  it('filtered by nothing, the filtered path agrees with the day sets', async () => {
    // A filter every counted view passes sends the query to the raw events; the answer must not move.
    const plain = await get('visitors', `${range(from, to)}&limit=250`);
    const all = truth(events, from, to, []);
    expect({ totals: plain.totals, rows: plain.visitors }).toEqual(expectedPage(all, 'visitors'));
  });

  it('compares with the previous period on visitors, views and series', async () => {
    const half = from + 2 * 86_400_000;
    for (const filters of [[], [['country', 'US']], [['path', '/']]] as Filter[][]) {
      const previous = truth(events, from, half, filters);
      for (const measure of ['visitors', 'views'] as const) {
        const answer = await get(measure, `${range(half, to)}&compare=previous_period${query(filters)}`);
        expect(answer.previous, `${measure} ${JSON.stringify(filters)}`).toEqual({ totals: classCounts(previous, measure) });
        expect(answer.totals).toEqual(classCounts(truth(events, half, to, filters), measure));
      }
      const series = await get('series', `${range(half, to)}&measure=views&compare=previous_period${query(filters)}`);
      expect(series.previous.series.map((day: { date: string }) => day.date)).toEqual(['2026-07-01', '2026-07-02']);
      expect(series.previous.series.reduce((sum: number, day: { total: number }) => sum + day.total, 0)).toBe(previous.length);
    }
    // Folded and indexed, the previous period's visitors come from the range index's site-wide cells alone.
    await foldProject(context.analytics, tenant.project.id);
    const { project_key: key } = await storage.db
      .selectFrom('analytics_projects')
      .select('project_key')
      .where('project_id', '=', tenant.project.id)
      .executeTakeFirstOrThrow();
    await refreshIndex(context.analytics, Number(key));
    for (const [start, end] of [
      [half, to],
      [from + 86_400_000, from + 3 * 86_400_000],
    ]) {
      const answer = await get('visitors', `${range(start, end)}&limit=1&compare=previous_period`);
      expect(answer.previous).toEqual({ totals: classCounts(truth(events, start - (end - start), start, []), 'visitors') });
    }
  });

  it('refuses malformed filters and comparisons with a 400 that says what to send', async () => {
    for (const parameters of [
      'property=country&filter=country=US',
      'property=country&filter=planet==Mars',
      'property=country&filter=country==',
      'property=region',
      'property=country&class=robots',
      'class=human',
    ]) {
      const response = await app.inject({ method: 'GET', url: `/v1/analytics/${tenant.project.id}/breakdown?${parameters}`, headers: tenant.auth });
      expect(response.statusCode, parameters).toBe(400);
      expect(response.json().code).toBe('invalid_request');
    }
    const compare = await app.inject({ method: 'GET', url: `/v1/analytics/${tenant.project.id}/visitors?compare=last_year`, headers: tenant.auth });
    expect(compare.statusCode).toBe(400);
    const badFilter = await app.inject({ method: 'GET', url: `/v1/analytics/${tenant.project.id}/visitors?filter=nope`, headers: tenant.auth });
    expect(badFilter.statusCode).toBe(400);
    expect(badFilter.json().error).toContain('property==value');
  });

  it('keeps tenants apart: another organization’s project is not found, and its views never show', async () => {
    const other = await createTenant(storage);
    const response = await app.inject({ method: 'GET', url: `/v1/analytics/${tenant.project.id}/breakdown?property=country`, headers: other.auth });
    expect(response.statusCode).toBe(404);
    const own = await app.inject({
      method: 'GET',
      url: `/v1/analytics/${other.project.id}/breakdown?property=country&${range(from, to)}`,
      headers: other.auth,
    });
    expect(own.json()).toEqual({ totals: { visitors: 0, views: 0 }, results: [], hasMore: false });
    const realtime = await app.inject({ method: 'GET', url: `/v1/analytics/${tenant.project.id}/realtime`, headers: other.auth });
    expect(realtime.statusCode).toBe(404);
    // A parameter the operation does not take is a 400, as on every other analytics read.
    const unknown = await app.inject({ method: 'GET', url: `/v1/analytics/${other.project.id}/realtime?x=1`, headers: other.auth });
    expect(unknown.statusCode).toBe(400);
  });

  it('pages a breakdown in order with hasMore', async () => {
    const all = expectedBreakdown(truth(events, from, to, []), 'browser', 'all');
    const first = await get('breakdown', `${range(from, to)}&property=browser&limit=2`);
    const second = await get('breakdown', `${range(from, to)}&property=browser&limit=2&offset=2`);
    expect([...first.results, ...second.results]).toEqual(all.results.slice(0, 4));
    expect(first.hasMore).toBe(true);
    expect(second.hasMore).toBe(all.results.length > 4);
  });

  it('rebuilds classes, traits and visits from the raw events exactly, whatever order the views arrived in', async () => {
    const rebuilt = await createTenant(storage, { project: { trackerDomains: ['docs.example.com'] } });
    // Newest call first: visits decided at ingestion start again for every call, so sources and entries differ until the rebuild.
    for (let part = 2; part >= 0; part--) {
      const slice = events.slice((part * events.length) / 3, ((part + 1) * events.length) / 3);
      const prepared = prepareAll(
        slice.map((event) => ({
          timestamp: event.at,
          path: paths[event.path],
          visitorId: `v${event.visitor}`,
          ip: addresses[event.address].ip,
          userAgent: clients[event.client].userAgent,
          referrer: referrers[event.referrer].referrer,
          status: event.status,
        })),
      );
      await storeEvents(context.analytics, rebuilt.project, prepared.events);
    }
    // As stored before this version: no class, no visits, no traits.
    await storage.db.updateTable('analytics_events').set({ counted: null, entry: 0, source_id: null }).execute();
    await storage.db.deleteFrom('analytics_agent_traits').execute();
    // And without the dimension kinds of the breakdown days, as migration 037 marks projects that had events.
    await storage.db.updateTable('analytics_projects').set({ dimension_days: 0 }).where('project_id', '=', rebuilt.project.id).execute();
    const ask = async (tenantOf: Tenant, property: string) =>
      (
        await app.inject({
          method: 'GET',
          url: `/v1/analytics/${tenantOf.project.id}/breakdown?${range(from, to)}&property=${property}&limit=250`,
          headers: tenantOf.auth,
        })
      ).json();
    expect((await ask(rebuilt, 'browser')).totals.views).toBe(0);
    await rebuildProject(context.analytics, rebuilt.project.id);
    await rebuildProject(context.analytics, tenant.project.id);
    const flag = await storage.db
      .selectFrom('analytics_projects')
      .select('dimension_days')
      .where('project_id', '=', rebuilt.project.id)
      .executeTakeFirstOrThrow();
    expect(Number(flag.dimension_days)).toBe(1);
    for (const property of ['country', 'browser', 'os', 'device', 'source', 'entry_page']) {
      const expected = expectedBreakdown(truth(events, from, to, []), property, 'all');
      expect(await ask(rebuilt, property), property).toEqual(expected);
      expect(await ask(tenant, property), property).toEqual(expected);
    }
  });

  it('answers breakdowns and single country or source filters from folded day records, equal to the raw events', async () => {
    const other = await createTenant(storage, { project: { trackerDomains: ['docs.example.com'] } });
    // The same events as the main project's (whose truth holds for them), stored in one call and folded.
    const sent = events;
    const prepared = prepareAll(
      sent.map((event) => ({
        timestamp: event.at,
        path: paths[event.path],
        visitorId: `v${event.visitor}`,
        ip: addresses[event.address].ip,
        userAgent: clients[event.client].userAgent,
        referrer: referrers[event.referrer].referrer,
        status: event.status,
      })),
    );
    await storeEvents(context.analytics, other.project, prepared.events);
    expect(await foldProject(context.analytics, other.project.id)).toBeGreaterThan(0);
    const ask = async (operation: string, parameters: string) =>
      (await app.inject({ method: 'GET', url: `/v1/analytics/${other.project.id}/${operation}?${parameters}`, headers: other.auth })).json();
    const end = to;
    const ranges = [
      [from, end],
      [from + 13 * 3_600_000, end - 7 * 3_600_000],
    ];
    const check = async () => {
      for (const [low, high] of ranges) {
        for (const property of ['country', 'browser', 'os', 'device', 'source', 'entry_page'])
          for (const viewClass of ['human', 'ai', 'all'] as const)
            expect(await ask('breakdown', `${range(low, high)}&property=${property}&class=${viewClass}&limit=250`), `${property} ${viewClass}`).toEqual(
              expectedBreakdown(truth(sent, low, high, []), property, viewClass),
            );
        for (const filters of [
          [['country', 'US']],
          [['country', 'GB']],
          [['country', 'ZZ']],
          [['source', 'google.com']],
          [['source', 'Direct / None']],
          [['source', 'nowhere.example']],
        ] as Filter[][]) {
          const views = truth(sent, low, high, filters);
          for (const measure of ['visitors', 'views'] as const) {
            const answer = await ask(measure, `${range(low, high)}&limit=1${query(filters)}&compare=previous_period`);
            expect(answer.totals, `${measure} ${JSON.stringify(filters)}`).toEqual(expectedPage(views, measure).totals);
            const series = await ask('series', `${range(low, high)}&measure=${measure}${query(filters)}`);
            for (const day of series.series) {
              const dayStart = Date.parse(`${day.date}T00:00:00Z`);
              const expected = classCounts(
                views.filter((view) => view.event.at >= dayStart && view.event.at < dayStart + 86_400_000),
                measure,
              );
              expect({ human: day.human, ai: day.ai, total: day.total }, `series ${day.date} ${measure} ${JSON.stringify(filters)}`).toEqual(expected);
            }
          }
        }
      }
    };
    await check();
    // From the dimension indexes (whole-day ranges), once built; a new version makes the answers count again.
    const { project_key: otherKey } = await storage.db
      .selectFrom('analytics_projects')
      .select('project_key')
      .where('project_id', '=', other.project.id)
      .executeTakeFirstOrThrow();
    const newVersion = () =>
      storage.db
        .updateTable('analytics_projects')
        .set((eb) => ({ version: eb('version', '+', 1) }))
        .where('project_key', '=', otherKey)
        .execute();
    await refreshDimensionIndexes(context.analytics, Number(otherKey), 400);
    await newVersion();
    const rankedByClass = vi.spyOn(RangeIndex.prototype, 'rankClass');
    await check();
    expect(rankedByClass, 'whole-day breakdowns are the dimension index’s cells').toHaveBeenCalled();
    rankedByClass.mockRestore();
    // A rebuild recomputes the records from the raw events: the same answers, from the records until the indexes are rebuilt.
    await rebuildProject(context.analytics, other.project.id);
    await check();
    await refreshDimensionIndexes(context.analytics, Number(otherKey), 400);
    await newVersion();
    await check();
    // Whole days are answered from the records alone: with the raw events of those days gone, nothing moves.
    const before = await ask('breakdown', `${range(from, end)}&property=country&limit=250`);
    const key = await storage.db.selectFrom('analytics_projects').select('project_key').where('project_id', '=', other.project.id).executeTakeFirstOrThrow();
    await storage.db.deleteFrom('analytics_events').where('project_key', '=', key.project_key).execute();
    await storage.db
      .updateTable('analytics_projects')
      .set((eb) => ({ version: eb('version', '+', 1) }))
      .where('project_key', '=', key.project_key)
      .execute();
    expect(await ask('breakdown', `${range(from, end)}&property=country&limit=250`)).toEqual(before);
  });

  it('answers visitors and views per page under one country or source from value pages and value indexes, exact before, while and after they cover each day', async () => {
    const other = await createTenant(storage, { project: { trackerDomains: ['docs.example.com'] } });
    // Some views of a visitor come from another address: a visitor's country changes between views, as sources do between visits.
    const mixed = events.map((event, index) => (index % 5 === 0 ? { ...event, address: (event.address + 1) % addresses.length } : event));
    const send = async (list: Sent[]) => {
      const prepared = prepareAll(
        list.map((event) => ({
          timestamp: event.at,
          path: paths[event.path],
          visitorId: `v${event.visitor}`,
          ip: addresses[event.address].ip,
          userAgent: clients[event.client].userAgent,
          referrer: referrers[event.referrer].referrer,
          status: event.status,
        })),
      );
      await storeEvents(context.analytics, other.project, prepared.events);
    };
    const sent = [...mixed];
    await send(sent);
    await foldProject(context.analytics, other.project.id);
    const { project_key: key } = await storage.db
      .selectFrom('analytics_projects')
      .select('project_key')
      .where('project_id', '=', other.project.id)
      .executeTakeFirstOrThrow();
    const ask = async (operation: string, parameters: string) =>
      (await app.inject({ method: 'GET', url: `/v1/analytics/${other.project.id}/${operation}?${parameters}`, headers: other.auth })).json();
    const filterSets: Filter[][] = [
      [['country', 'US']],
      [['country', 'GB']],
      [['country', 'ZZ']],
      [['source', 'google.com']],
      [['source', 'chatgpt.com']],
      [['source', 'Direct / None']],
      [['source', 'nowhere.example']],
    ];
    const check = async (label: string) => {
      for (const [low, high] of [
        [from, to],
        [from + 86_400_000, to - 86_400_000],
        [from + 13 * 3_600_000, to - 7 * 3_600_000],
      ])
        for (const filters of filterSets)
          for (const measure of ['visitors', 'views'] as const) {
            const expected = expectedPage(truth(sent, low, high, filters), measure);
            const answer = await ask(measure, `${range(low, high)}&limit=250${query(filters)}`);
            expect({ totals: answer.totals, rows: answer[measure] }, `${label}: ${measure} ${JSON.stringify(filters)} ${low}-${high}`).toEqual(expected);
            // Pages of one and two rows, the first asked first (an answer exact over fewer rows is counted again).
            for (const [limit, offset] of [
              [1, 0],
              [2, 0],
              [1, 2],
              [2, 3],
            ]) {
              const part = await ask(measure, `${range(low, high)}&limit=${limit}&offset=${offset}${query(filters)}`);
              expect({ totals: part.totals, rows: part[measure], hasMore: part.hasMore }, `${label}: ${measure} ${limit}@${offset}`).toEqual({
                totals: expected.totals,
                rows: expected.rows.slice(offset, offset + limit),
                hasMore: offset + limit < expected.rows.length,
              });
            }
          }
    };
    // Answers are cached per data version: a new version makes the next check count again.
    const newVersion = () =>
      storage.db
        .updateTable('analytics_projects')
        .set((eb) => ({ version: eb('version', '+', 1) }))
        .where('project_key', '=', key)
        .execute();
    await check('from raw events');
    expect(await refreshValuePages(context.analytics, Number(key), 400)).toBeGreaterThan(3);
    expect(await refreshValuePages(context.analytics, Number(key), 400)).toBe(0);
    await newVersion();
    await check('from value pages');
    // With the dimension indexes, whole days count only the busiest pages, and the totals come from the index.
    await refreshDimensionIndexes(context.analytics, Number(key), 400);
    await newVersion();
    await check('from value pages and dimension indexes');
    // With value indexes, the busiest values' pages over whole days are their index's ranking.
    await refreshValueIndexes(context.analytics, Number(key), 400);
    const indexed = () => context.analytics.caches.valueIndexes<ValueIndexes>(Number(key))!;
    expect(indexed().indexes.size).toBeGreaterThan(2);
    await newVersion();
    await check('from value indexes');
    await newVersion();
    const ranked = vi.spyOn(RangeIndex.prototype, 'rank');
    await ask('visitors', `${range(from, to)}&limit=250&filter=${encodeURIComponent('country==US')}`);
    expect(ranked).toHaveBeenCalledTimes(1);
    ranked.mockRestore();
    const firstBuild = indexed();
    await refreshValueIndexes(context.analytics, Number(key), 400);
    expect(indexed(), 'unchanged pages keep their indexes').toBe(firstBuild);
    // New visitors' views on covered days: pending first (their days count from raw events), then folded (the days changed).
    const later = mixed.slice(0, 80).map((event) => ({ ...event, visitor: event.visitor + 100, at: event.at + 3 * minute }));
    sent.push(...later);
    await send(later);
    await check('with pending views');
    await foldProject(context.analytics, other.project.id);
    await check('after a fold');
    // Read in parts of a few rowids (on SQLite), so that each day takes several parts and the later views, stored
    // after every day's first ones, stand apart from the rest of their day.
    expect(await refreshValuePages(context.analytics, Number(key), 400, () => false, 7)).toBeGreaterThan(0);
    await newVersion();
    await check('from refreshed value pages');
    await refreshDimensionIndexes(context.analytics, Number(key), 400);
    await newVersion();
    await check('from refreshed value pages and dimension indexes (value indexes behind)');
    await refreshValueIndexes(context.analytics, Number(key), 400);
    expect(indexed()).not.toBe(firstBuild);
    await newVersion();
    await check('from refreshed value indexes');
    // Whole days come from the pages and indexes alone: without their raw events, whole-day answers stay.
    const whole = await ask('visitors', `${range(from, to)}&limit=250&filter=${encodeURIComponent('source==Direct / None')}`);
    await storage.db.deleteFrom('analytics_events').where('project_key', '=', key).execute();
    await newVersion();
    expect(await ask('visitors', `${range(from, to)}&limit=250&filter=${encodeURIComponent('source==Direct / None')}`)).toEqual(whole);
  }, 180_000);

  it('counts who is on the site in the last five minutes, as soon as views are stored', async () => {
    const realtimeTenant = await createTenant(storage);
    const now = Date.now();
    const send = async (list: { at: number; visitor: string; client: number; path: string }[]) => {
      const prepared = prepareAll(
        // No address for the AI view: GPTBot's claim from an address outside OpenAI's ranges would be spoofed.
        list.map((view) => ({
          timestamp: view.at,
          path: view.path,
          visitorId: view.visitor,
          userAgent: clients[view.client].userAgent,
          ip: clients[view.client].device === 'bot' ? undefined : '8.8.8.8',
        })),
      );
      await storeEvents(context.analytics, realtimeTenant.project, prepared.events);
    };
    const ask = async () =>
      (await app.inject({ method: 'GET', url: `/v1/analytics/${realtimeTenant.project.id}/realtime`, headers: realtimeTenant.auth })).json();
    await send([
      { at: now - 10 * minute, visitor: 'old', client: 0, path: '/gone' },
      { at: now - 2 * minute, visitor: 'a', client: 0, path: '/guide' },
    ]);
    expect(await ask()).toEqual({ visitors: { human: 1, ai: 0, total: 1 }, pages: [{ path: '/guide', visitors: 1 }] });
    await send([
      { at: now - minute, visitor: 'b', client: 1, path: '/guide' },
      { at: now - minute, visitor: 'bot', client: 3, path: '/api' },
    ]);
    expect(await ask()).toEqual({
      visitors: { human: 2, ai: 1, total: 3 },
      pages: [
        { path: '/guide', visitors: 2 },
        { path: '/api', visitors: 1 },
      ],
    });
  });
});
