import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { foldPending } from '../../src/analytics/fold/fold.ts';
import { existingProjectKey } from '../../src/analytics/ingest/dense-ids.ts';
import { prepareAll, storeEvents } from '../../src/analytics/ingest/ingest.ts';
import { dayMs } from '../../src/analytics/model/days.ts';
import { page } from '../../src/analytics/query/query.ts';
import { refreshIndex } from '../../src/analytics/query/range-index-refresh.ts';
import { dailySeries } from '../../src/analytics/query/series.ts';
import { createAnalyticsState, type AnalyticsState } from '../../src/analytics/state.ts';
import type { Storage } from '../../src/storage/dialect.ts';
import { createTenant } from '../support/app.ts';
import { testDatabases } from '../support/storage.ts';

const agents = ['Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0', 'Mozilla/5.0 (compatible; GPTBot/1.2; +https://openai.com/gptbot)'];
const start = Date.UTC(2026, 6, 1);

/** The daily series must equal one query per day, whatever mix of days, classes, visitors and folding. */
describe.each(testDatabases)('daily series on $dialect', (database) => {
  let storage: Storage;
  let analytics: AnalyticsState;
  beforeAll(async () => {
    storage = await database.open();
    analytics = createAnalyticsState(storage);
  });
  afterAll(async () => storage.close());

  const event = fc.record({
    hour: fc.integer({ min: 0, max: 24 * 6 - 1 }),
    visitor: fc.integer({ min: 1, max: 8 }),
    agent: fc.constantFrom(0, 1),
    path: fc.constantFrom('/a', '/b', '/c'),
  });

  it('counts each day as a query of that day would, visitors and views', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(event, { maxLength: 40 }),
        fc.array(event, { maxLength: 10 }),
        fc.integer({ min: 0, max: 23 }),
        fc.boolean(),
        async (folded, pending, startHour, indexed) => {
          const tenant = await createTenant(storage);
          const store = (events: typeof folded) =>
            storeEvents(
              analytics,
              tenant.project,
              prepareAll(
                events.map((entry) => ({
                  timestamp: start + entry.hour * 3_600_000,
                  path: entry.path,
                  visitorId: `v${entry.visitor}`,
                  userAgent: agents[entry.agent],
                })),
              ).events,
            );
          await store(folded);
          const key = await existingProjectKey(storage.db, analytics.ids, tenant.project.id);
          if (key !== undefined) await foldPending(storage, key);
          await store(pending);
          // With everything folded and the range index built, whole days are counted by the index.
          const projectKey = await existingProjectKey(storage.db, analytics.ids, tenant.project.id);
          if (indexed && projectKey !== undefined) {
            await foldPending(storage, projectKey);
            await refreshIndex(analytics, projectKey);
          }
          // A range that starts inside a day: its first day is counted from the raw events.
          const from = start + startHour * 3_600_000;
          const to = start + 6 * dayMs;
          for (const measure of ['visitors', 'views'] as const) {
            const series = await dailySeries(analytics, tenant.project.id, measure, from, to);
            expect(series).toHaveLength(6);
            for (const entry of series) {
              const dayStart = Math.max(entry.day * dayMs, from);
              const { totals } = await page(analytics, tenant.project.id, { measure, from: dayStart, to: (entry.day + 1) * dayMs, limit: 1, offset: 0 });
              expect({ human: entry.human, ai: entry.ai, total: entry.total }).toEqual(totals);
            }
          }
        },
      ),
      { numRuns: 25 },
    );
  });
});
