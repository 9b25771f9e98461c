import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { prepareAll, storeEvents } from '../../src/analytics/ingest/ingest.ts';
import { mergeRecentVisitors, mergeRecentVisitorsBeside } from '../../src/analytics/ingest/visitor-identity.ts';
import { mergeThreshold } from '../../src/analytics/ingest/visitor-log.ts';
import { projectKey } from '../../src/analytics/ingest/dense-ids.ts';
import { page } from '../../src/analytics/query/query.ts';
import { GroupWriter } from '../../src/analytics/ingest/group-commit.ts';
import { createAnalyticsState } from '../../src/analytics/state.ts';
import type { Storage } from '../../src/storage/dialect.ts';
import { createTenant } from '../support/app.ts';
import { testDatabases } from '../support/storage.ts';

const chrome = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';

describe('group commit', () => {
  it('writes concurrent calls together and answers each with its own result', async () => {
    const groups: number[][] = [];
    const writer = new GroupWriter<number, number>({
      write: async (calls) => (groups.push(calls), calls.map((call) => call * 10)),
      size: () => 1,
      maxSize: 100,
    });
    expect(await Promise.all([1, 2, 3].map((call) => writer.write(call)))).toEqual([10, 20, 30]);
    expect(groups).toEqual([[1, 2, 3]]);
  });

  it('retries a failed group one call at a time, so only the bad call fails', async () => {
    const writer = new GroupWriter<number, number>({
      write: async (calls) => {
        if (calls.includes(2)) throw new Error('bad call');
        return calls;
      },
      size: () => 1,
      maxSize: 100,
    });
    const results = await Promise.allSettled([1, 2, 3].map((call) => writer.write(call)));
    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
  });

  it('answers a deferred group only once its commit is on disk, writing the next group meanwhile, and fails it when the flush fails', async () => {
    const flushes: { resolve: () => void; reject: (error: Error) => void }[] = [];
    const groups: number[][] = [];
    const writer = new GroupWriter<number, number>({
      write: async (calls) => {
        groups.push(calls);
        const durable = new Promise<void>((resolve, reject) => flushes.push({ resolve, reject }));
        return { results: calls.map((call) => call * 10), durable };
      },
      size: () => 1,
      maxSize: 2,
    });
    const answered: number[] = [];
    const pending = [1, 2, 3, 4].map((call) => writer.write(call).then((result) => (answered.push(result), result)));
    await vi.waitFor(() =>
      expect(groups).toEqual([
        [1, 2],
        [3, 4],
      ]),
    );
    // Both groups were written, none answered: their flushes have not finished.
    expect(answered).toEqual([]);
    flushes[1]!.resolve();
    await vi.waitFor(() => expect(answered).toEqual([30, 40]));
    flushes[0]!.reject(new Error('flush failed'));
    const settled = await Promise.allSettled(pending);
    expect(settled.map((result) => result.status)).toEqual(['rejected', 'rejected', 'fulfilled', 'fulfilled']);
    // A failed flush is not retried call by call: the rows are committed, only their durability is unknown.
    expect(groups).toHaveLength(2);
  });

  it('writes up to `concurrency` groups at once, each of calls with one `groupKey`', async () => {
    let running = 0;
    let most = 0;
    const groups: number[][] = [];
    const writer = new GroupWriter<number, number>({
      write: async (calls) => {
        groups.push(calls);
        most = Math.max(most, ++running);
        await new Promise((resolve) => setTimeout(resolve, 20));
        running--;
        return calls;
      },
      size: () => 1,
      maxSize: 100,
      concurrency: 3,
      groupKey: (call) => call % 2,
    });
    const first = writer.write(1);
    await new Promise((resolve) => setImmediate(resolve));
    expect(await Promise.all([first, ...[2, 3, 4, 5].map((call) => writer.write(call))])).toEqual([1, 2, 3, 4, 5]);
    expect(groups).toEqual([[1], [2, 4], [3, 5]]);
    expect(most).toBe(3);
  });
});

describe.each(testDatabases)('visitor ids on $dialect', (database) => {
  let storage: Storage;

  beforeAll(async () => {
    storage = await database.open();
  });
  afterAll(async () => {
    await storage.close();
  });

  /** The visitor ids a project has stored, in both visitor tables where there are two. */
  const storedVisitorIds = async (key: number) => {
    const tables = storage.profile.logsWholePages ? (['analytics_visitors', 'analytics_visitor_log'] as const) : (['analytics_visitors'] as const);
    const ids: number[] = [];
    for (const table of tables) {
      for (const row of await storage.db.selectFrom(table).select('visitor_id').where('project_key', '=', key).execute()) ids.push(Number(row.visitor_id));
    }
    return ids;
  };
  /** An export's totals over [from, to). */
  const totals = async (
    state: ReturnType<typeof createAnalyticsState>,
    projectId: string,
    from: number,
    to: number,
    measure: 'visitors' | 'views' = 'visitors',
  ) => (await page(state, projectId, { measure, from, to, limit: 10, offset: 0 })).totals;

  it('merges recent visitors on the writing thread where there is one, keeping their ids', async () => {
    const tenant = await createTenant(storage);
    const analytics = createAnalyticsState(storage);
    const visit = (visitor: string, day: number) => ({ timestamp: Date.UTC(2026, 2, day, 12), path: '/guide', visitorId: visitor, userAgent: chrome });
    await storeEvents(analytics, tenant.project, prepareAll([visit('m1', 1), visit('m2', 1)]).events);
    // Below the threshold nothing moves; at it, the merge runs on SQLite's writing thread and empties the recent
    // table (PostgreSQL has none: it inserts into the index directly).
    expect(await mergeRecentVisitorsBeside(storage, 1)).toBe(false);
    if (database.dialect === 'sqlite') {
      const recent = () => storage.db.selectFrom('analytics_visitor_log').select('visitor_id').execute();
      expect((await recent()).length).toBeGreaterThan(0);
      expect(await mergeRecentVisitorsBeside(storage, mergeThreshold)).toBe(true);
      expect(await recent()).toEqual([]);
    } else expect(await mergeRecentVisitorsBeside(storage, mergeThreshold)).toBe(false);
    analytics.ids.identities.clear();
    await storeEvents(analytics, tenant.project, prepareAll([visit('m1', 2), visit('m3', 2)]).events);
    expect(await totals(analytics, tenant.project.id, Date.UTC(2026, 2, 1), Date.UTC(2026, 2, 3))).toEqual({ human: 3, ai: 0, total: 3 });
  });

  it('keeps a visitor id after recent visitors are merged and the identity cache is gone', async () => {
    const tenant = await createTenant(storage);
    const analytics = createAnalyticsState(storage);
    const visit = (visitor: string, day: number) => ({ timestamp: Date.UTC(2026, 2, day, 12), path: '/guide', visitorId: visitor, userAgent: chrome });
    await storeEvents(analytics, tenant.project, prepareAll([visit('a', 1), visit('b', 1)]).events);
    await mergeRecentVisitors(storage, 2, 1);
    analytics.ids.identities.clear();
    await storeEvents(analytics, tenant.project, prepareAll([visit('a', 2), visit('c', 2)]).events);
    analytics.ids.identities.clear();
    await storeEvents(analytics, tenant.project, prepareAll([visit('c', 3), visit('b', 3)]).events);
    expect(await totals(analytics, tenant.project.id, Date.UTC(2026, 2, 1), Date.UTC(2026, 2, 4))).toEqual({ human: 3, ai: 0, total: 3 });
  });

  it('gives every visitor one id when many calls of one project are written side by side', async () => {
    const tenant = await createTenant(storage);
    const analytics = createAnalyticsState(storage);
    // Twenty calls over the same forty visitors and ten new paths, in different orders.
    const calls = Array.from({ length: 20 }, (_, call) =>
      Array.from({ length: 40 }, (_, index) => ({
        timestamp: Date.UTC(2026, 3, 1, 12),
        path: `/page-${(index + call) % 10}`,
        visitorId: `visitor-${(index * 7 + call) % 40}`,
        userAgent: chrome,
        referrer: `https://site-${index % 5}.example/`,
      })),
    );
    await Promise.all(calls.map((events) => storeEvents(analytics, tenant.project, prepareAll(events).events)));
    expect(await totals(analytics, tenant.project.id, Date.UTC(2026, 3, 1), Date.UTC(2026, 3, 2))).toEqual({ human: 40, ai: 0, total: 40 });
    const key = analytics.ids.projects.get(tenant.project.id)!;
    const ids = await storedVisitorIds(key);
    expect(ids).toHaveLength(40);
    expect(new Set(ids).size).toBe(40);
  });

  it('gives new visitors distinct ids when two processes write one project side by side', async () => {
    const tenant = await createTenant(storage);
    // Two processes: each has its own caches and, where writers run side by side, its own id blocks.
    const processes = [createAnalyticsState(storage), createAnalyticsState(storage)];
    const visit = (visitor: string) => ({ timestamp: Date.UTC(2026, 4, 1, 12), path: '/guide', visitorId: visitor, userAgent: chrome });
    await Promise.all(
      Array.from({ length: 8 }, (_, call) =>
        storeEvents(processes[call % 2], tenant.project, prepareAll(Array.from({ length: 25 }, (_, index) => visit(`p${call % 2}-v${call}-${index}`))).events),
      ),
    );
    const key = processes[0].ids.projects.get(tenant.project.id)!;
    const ids = await storedVisitorIds(key);
    expect(ids).toHaveLength(200);
    expect(new Set(ids).size).toBe(200);
    expect(await totals(processes[1], tenant.project.id, Date.UTC(2026, 4, 1), Date.UTC(2026, 4, 2))).toEqual({ human: 200, ai: 0, total: 200 });
  });

  it("keeps one id per visitor when another process adds visitors between a process's writes", async () => {
    const tenant = await createTenant(storage);
    const [first, second] = [createAnalyticsState(storage), createAnalyticsState(storage)];
    const visit = (visitor: string, hour: number) => ({ timestamp: Date.UTC(2026, 4, 3, hour), path: '/guide', visitorId: visitor, userAgent: chrome });
    // The first process writes a fresh project (its cache then holds every visitor), the second adds
    // one the first has not seen, and the first sees that visitor again: it must find the stored id.
    await storeEvents(first, tenant.project, prepareAll([visit('a', 1), visit('b', 1)]).events);
    await storeEvents(second, tenant.project, prepareAll([visit('c', 2)]).events);
    await storeEvents(first, tenant.project, prepareAll([visit('c', 3), visit('d', 3)]).events);
    await storeEvents(first, tenant.project, prepareAll([visit('e', 4), visit('a', 4)]).events);
    const key = first.ids.projects.get(tenant.project.id)!;
    const ids = await storedVisitorIds(key);
    expect(ids).toHaveLength(5);
    expect(new Set(ids).size).toBe(5);
    expect(await totals(first, tenant.project.id, Date.UTC(2026, 4, 3), Date.UTC(2026, 4, 4))).toEqual({ human: 5, ai: 0, total: 5 });
  });

  it('answers calls written in one transaction each with its own counts, a key shared by two stored once', async () => {
    const tenant = await createTenant(storage);
    const analytics = createAnalyticsState(storage);
    const keyed = (keys: string[]) =>
      prepareAll(keys.map((key) => ({ timestamp: Date.UTC(2026, 4, 2, 12), path: `/${key}`, visitorId: key, userAgent: chrome }))).events.map(
        (event, index) => ({ ...event, eventKey: keys[index] }),
      );
    // With the project's key cached, the two calls queue in one turn of the event loop and share a transaction.
    await projectKey(storage.db, analytics.ids, tenant.project.id);
    const results = await Promise.all([
      storeEvents(analytics, tenant.project, keyed(['k1', 'k2'])),
      storeEvents(analytics, tenant.project, keyed(['k2', 'k3'])),
    ]);
    expect(results).toEqual([
      { stored: 2, duplicates: 0 },
      { stored: 1, duplicates: 1 },
    ]);
    expect(await totals(analytics, tenant.project.id, Date.UTC(2026, 4, 2), Date.UTC(2026, 4, 3), 'views')).toEqual({ human: 3, ai: 0, total: 3 });
  });

  it('stores text with tabs, line breaks and backslashes exactly as sent', async () => {
    const tenant = await createTenant(storage);
    const analytics = createAnalyticsState(storage);
    const referrer = 'https://example.org/a\\tb\tc\nd\re\\N\\';
    await storeEvents(analytics, tenant.project, prepareAll([{ path: '/x', visitorId: 'v', userAgent: chrome, referrer }]).events);
    const key = analytics.ids.projects.get(tenant.project.id)!;
    const rows = await storage.db.selectFrom('analytics_events').select('referrer').where('project_key', '=', key).execute();
    expect(rows.map((row) => row.referrer)).toEqual([referrer]);
  });
});
