import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { foldPending } from '../../src/analytics/fold/fold.ts';
import { dictionaryLimits, existingProjectKey } from '../../src/analytics/ingest/dense-ids.ts';
import { prepareAll, storeEvents } from '../../src/analytics/ingest/ingest.ts';
import { page } from '../../src/analytics/query/query.ts';
import { createAnalyticsState, type AnalyticsState } from '../../src/analytics/state.ts';
import type { Storage } from '../../src/storage/dialect.ts';
import { createTenant } from '../support/app.ts';
import { testDatabases } from '../support/storage.ts';

const start = Date.UTC(2026, 5, 1);

/**
 * What views name (paths, user agents, referring hosts) comes from clients: the process's caches of their ids
 * start over at their limits, and every answer stays what it was, names included.
 */
describe.each(testDatabases)('bounded id caches on $dialect', (database) => {
  let storage: Storage;
  let analytics: AnalyticsState;
  const limits = { ...dictionaryLimits };
  beforeAll(async () => {
    storage = await database.open();
    analytics = createAnalyticsState(storage);
  });
  afterEach(() => Object.assign(dictionaryLimits, limits));
  afterAll(async () => storage.close());

  it('holds at most the limits, and pages keep every path’s name, before and after the caches start over', async () => {
    Object.assign(dictionaryLimits, { paths: 10, agents: 10, referrers: 10 });
    const { project } = await createTenant(storage);
    const events = Array.from({ length: 60 }, (_, index) => ({
      timestamp: start + index * 60_000,
      path: `/page-${index % 30}`,
      visitorId: `v${index}`,
      userAgent: `Mozilla/5.0 (X11; Linux x86_64) Firefox/${index}.0`,
      referrer: `https://site-${index}.example/`,
    }));
    for (let offset = 0; offset < events.length; offset += 7) await storeEvents(analytics, project, prepareAll(events.slice(offset, offset + 7)).events);
    expect(analytics.ids.agents.size).toBeLessThanOrEqual(10);
    expect(analytics.ids.referrers.size).toBeLessThanOrEqual(10);
    expect([...analytics.ids.paths.values()].reduce((sum, paths) => sum + paths.size, 0)).toBeLessThanOrEqual(10);
    const key = (await existingProjectKey(storage.db, analytics.ids, project.id))!;
    await foldPending(storage, key);
    const answer = await page(analytics, project.id, { measure: 'views', from: start, to: start + 86_400_000, limit: 100, offset: 0 });
    expect(answer.totals.total).toBe(60);
    expect(answer.rows.map((row) => row.path).sort()).toEqual(Array.from({ length: 30 }, (_, index) => `/page-${index}`).sort());
    expect(answer.rows.every((row) => row.total === 2)).toBe(true);
    // A cached ranking after the caches started over again still names its paths.
    analytics.ids.paths.clear();
    analytics.ids.pathNames.clear();
    const again = await page(analytics, project.id, { measure: 'views', from: start, to: start + 86_400_000, limit: 100, offset: 0 });
    expect(again.rows.map((row) => row.path)).toEqual(answer.rows.map((row) => row.path));
  });
});
