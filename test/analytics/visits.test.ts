import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBackgroundLoop } from '../../src/analytics/fold/background.ts';
import { foldProject } from '../../src/analytics/fold/fold.ts';
import { existingProjectKey } from '../../src/analytics/ingest/dense-ids.ts';
import { prepareAll, storeEvents } from '../../src/analytics/ingest/ingest.ts';
import { dimensionBreakdown } from '../../src/analytics/query/dimensions.ts';
import { createAnalyticsState, type AnalyticsState } from '../../src/analytics/state.ts';
import type { Storage } from '../../src/storage/dialect.ts';
import { createTenant } from '../support/app.ts';
import { testDatabases } from '../support/storage.ts';

const minute = 60_000;
const dayMs = 86_400_000;
const start = Date.UTC(2026, 2, 1);
const browser = 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0';
const crawler = 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)';
const referrers = ['https://google.com/', 'https://news.ycombinator.com/item', 'https://chatgpt.com/', undefined, undefined];
const hosts = ['google.com', 'news.ycombinator.com', 'chatgpt.com', null, null];
const paths = ['/', '/guide', '/api', '/faq', '/setup'];

interface Sent {
  at: number;
  visitor: number;
  referrer: number;
  path: number;
  ai: boolean;
  status: number;
}

/** A fixed pseudo-random sequence of views: visitors coming back within and after 30 minutes, over three days, each time distinct. */
function makeEvents(count: number, seed: number): Sent[] {
  let state = seed;
  const next = (n: number) => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state % n;
  };
  const events: Sent[] = [];
  let at = start + 20 * minute;
  for (let index = 0; index < count; index++) {
    at += [1, 3, 7, 12, 25, 31, 45][next(7)] * minute + next(1000);
    const visitor = next(12);
    events.push({ at, visitor, referrer: next(referrers.length), path: next(paths.length), ai: visitor % 5 === 0, status: next(15) === 0 ? 404 : 200 });
  }
  return events;
}

/** Deterministic shuffle, so a failing order can be replayed. */
function shuffled<T>(items: T[], seed: number): T[] {
  const result = [...items];
  let state = seed;
  for (let index = result.length - 1; index > 0; index--) {
    state = (state * 1103515245 + 12345) % 2147483648;
    const other = state % (index + 1);
    [result[index], result[other]] = [result[other], result[index]];
  }
  return result;
}

/** Each view's entry flag and visit source, by the definition (every view, any class or status, belongs to its visitor's visits). */
function visits(events: Sent[]): Map<Sent, { entry: boolean; source: string }> {
  const result = new Map<Sent, { entry: boolean; source: string }>();
  const last = new Map<number, { at: number; source: string }>();
  for (const event of [...events].sort((a, b) => a.at - b.at)) {
    const previous = last.get(event.visitor);
    const entry = previous === undefined || event.at - previous.at > 30 * minute;
    const source = entry ? (hosts[event.referrer] ?? 'Direct / None') : previous!.source;
    result.set(event, { entry, source });
    last.set(event.visitor, { at: event.at, source });
  }
  return result;
}

/** The source and entry-page breakdowns over [from, to), counted here from the events. */
function expected(events: Sent[], property: 'source' | 'entry_page', viewClass: 'human' | 'ai' | 'all', from: number, to: number) {
  const visit = visits(events);
  const counted = events.filter(
    (event) => event.at >= from && event.at < to && event.status < 400 && (viewClass === 'all' || event.ai === (viewClass === 'ai')),
  );
  const list = property === 'entry_page' ? counted.filter((event) => visit.get(event)!.entry) : counted;
  const groups = new Map<string, Sent[]>();
  for (const event of list) {
    const value = property === 'source' ? visit.get(event)!.source : paths[event.path];
    if (!groups.has(value)) groups.set(value, []);
    groups.get(value)!.push(event);
  }
  const distinct = (group: Sent[]) => new Set(group.map((event) => event.visitor)).size;
  return {
    totals: { visitors: distinct(list), views: list.length },
    results: [...groups]
      .map(([value, group]) => ({ value, visitors: distinct(group), views: group.length }))
      .sort((a, b) => b.visitors - a.visitors || (a.value < b.value ? -1 : 1)),
    hasMore: false,
  };
}

const input = (event: Sent) => ({
  timestamp: event.at,
  path: paths[event.path],
  visitorId: `v${event.visitor}`,
  userAgent: event.ai ? crawler : browser,
  referrer: referrers[event.referrer],
  status: event.status,
});

/** Splits events into batches of 1 to `largest` views, sizes drawn from `seed`. */
function batches(events: Sent[], largest: number, seed: number): Sent[][] {
  const result: Sent[][] = [];
  let state = seed;
  for (let index = 0; index < events.length;) {
    state = (state * 1103515245 + 12345) % 2147483648;
    const size = 1 + (state % largest);
    result.push(events.slice(index, index + size));
    index += size;
  }
  return result;
}

describe.each(testDatabases)('visits whatever the arrival order on $dialect', (database) => {
  let storage: Storage;
  let first: AnalyticsState;
  let second: AnalyticsState;
  const events = makeEvents(300, 11);

  beforeAll(async () => {
    storage = await database.open();
    // Two ingesters with their own memory of visits, as two processes on one database are.
    first = createAnalyticsState(storage);
    second = createAnalyticsState(storage);
  });
  afterAll(async () => {
    await storage?.close();
  });

  const store = async (state: AnalyticsState, project: Awaited<ReturnType<typeof createTenant>>['project'], list: Sent[]) => {
    const prepared = prepareAll(list.map(input));
    expect(prepared.errors).toEqual([]);
    await storeEvents(state, project, prepared.events);
  };

  /** Folds (with the visit repair, unless told not to) and checks every source and entry-page breakdown, and each raw event's visit, against the definition. */
  const check = async (projectId: string, fold = true) => {
    if (fold) await foldProject(first, projectId);
    const ranges: [number, number][] = [
      [start, start + 3 * dayMs],
      [start + 5 * 3_600_000, start + 2 * dayMs + 7 * 3_600_000],
    ];
    for (const [from, to] of ranges)
      for (const property of ['source', 'entry_page'] as const)
        for (const viewClass of ['human', 'ai', 'all'] as const) {
          const answer = await dimensionBreakdown(first, projectId, { from, to, filters: [], property, viewClass, limit: 250, offset: 0 });
          expect(answer, `${property} ${viewClass} ${from}-${to}`).toEqual(expected(events, property, viewClass, from, to));
        }
    const key = (await existingProjectKey(storage.db, first.ids, projectId))!;
    const rows = await storage.db
      .selectFrom('analytics_events as e')
      .leftJoin('analytics_referrers as r', 'r.referrer_id', 'e.source_id')
      .select(['e.at', 'e.entry', 'r.host'])
      .where('e.project_key', '=', key)
      .orderBy('e.at')
      .execute();
    const visit = visits(events);
    const byTime = new Map(events.map((event) => [event.at, visit.get(event)!]));
    expect(rows.map((row) => ({ at: Number(row.at), entry: Number(row.entry) === 1, source: row.host ?? 'Direct / None' }))).toEqual(
      events.map((event) => ({ at: event.at, ...byTime.get(event.at)! })),
    );
    expect(await storage.db.selectFrom('analytics_visit_doubts').selectAll().execute()).toEqual([]);
  };

  it('is exact for views in time order, in one call and in many', async () => {
    const { project } = await createTenant(storage);
    await store(first, project, events);
    await check(project.id);
    const other = await createTenant(storage);
    for (const batch of batches(events, 9, 3)) await store(first, other.project, batch);
    await check(other.project.id);
  });

  it('is exact for views in reverse and shuffled orders, in batches of every size', async () => {
    for (const [seed, largest] of [
      [1, 1],
      [2, 5],
      [3, 40],
      [4, 300],
    ]) {
      const { project } = await createTenant(storage);
      const order = seed === 1 ? [...events].reverse() : shuffled(events, seed);
      for (const batch of batches(order, largest, seed)) await store(first, project, batch);
      await check(project.id);
    }
  });

  it('is exact when folds and repairs run between late views', async () => {
    const { project } = await createTenant(storage);
    const order = shuffled(events, 9);
    const parts = batches(order, 60, 9);
    for (const [index, batch] of parts.entries()) {
      await store(first, project, batch);
      if (index % 3 === 0) await foldProject(first, project.id);
    }
    await check(project.id);
  });

  it('is exact when two ingesters store one visitor’s views side by side, folding as they go', async () => {
    for (const seed of [5, 6]) {
      const { project } = await createTenant(storage);
      // Time order, as two nodes behind a load balancer receive a site's traffic, and shuffled.
      const order = seed === 5 ? events : shuffled(events, seed);
      const parts = batches(order, 12, seed);
      // Each ingester also folds and repairs as it goes, so two folds of the project meet as well.
      await Promise.all([
        (async () => {
          for (const [index, batch] of parts.filter((_, index) => index % 2 === 0).entries()) {
            await store(first, project, batch);
            if (index % 4 === 0) await foldProject(first, project.id);
          }
        })(),
        (async () => {
          for (const [index, batch] of parts.filter((_, index) => index % 2 === 1).entries()) {
            await store(second, project, batch);
            if (index % 4 === 1) await foldProject(second, project.id);
          }
        })(),
      ]);
      await check(project.id);
    }
  });

  it('is exact once the background loop has folded and repaired, without an explicit fold', async () => {
    const { project } = await createTenant(storage);
    const loop = startBackgroundLoop(first, { logger: pino({ level: 'silent' }), retentionDays: 0 });
    try {
      for (const batch of batches(shuffled(events, 8), 25, 8)) await store(first, project, batch);
      const key = (await existingProjectKey(storage.db, first.ids, project.id))!;
      const left = async () =>
        (await storage.db.selectFrom('analytics_pending').select('id').where('project_key', '=', key).execute()).length +
        (await storage.db.selectFrom('analytics_visit_doubts').select('id').where('project_key', '=', key).execute()).length;
      const started = Date.now();
      while ((await left()) > 0 && Date.now() - started < 20_000) await new Promise((resolve) => setTimeout(resolve, 100));
      expect(await left()).toBe(0);
    } finally {
      await loop.stop();
    }
    await check(project.id, false);
  });
});
