import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBackgroundLoop } from '../../src/analytics/fold/background.ts';
import { foldPending } from '../../src/analytics/fold/fold.ts';
import { storeClassificationVersion, storedClassificationVersion } from '../../src/analytics/fold/reclassify.ts';
import { classificationVersion } from '../../src/analytics/ingest/agents/load.ts';
import { existingProjectKey } from '../../src/analytics/ingest/dense-ids.ts';
import { ingest } from '../support/ingest.ts';
import { ClassCode } from '../../src/analytics/model/class-codes.ts';
import { page } from '../../src/analytics/query/query.ts';
import { createAnalyticsState, type AnalyticsState } from '../../src/analytics/state.ts';
import type { Storage } from '../../src/storage/dialect.ts';
import { createTenant, type Tenant } from '../support/app.ts';
import { testDatabases } from '../support/storage.ts';

const day = Date.UTC(2026, 10, 21);
const range = { measure: 'views' as const, from: day, to: day + 86_400_000, limit: 50, offset: 0 };
const chrome = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';
// Agents the lists before version 012 did not know: those views were excluded then.
const newlyKnown = [
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/137.0.0.0 Safari/537.36 (compatible; Google-Agent)',
  'ModelContextProtocol/1.0 (Autonomous; +https://github.com/modelcontextprotocol/servers)',
  'GeminiCLI/0.1.18 (linux; x64)',
];
const silent = pino({ level: 'silent' });

/**
 * Day sets built with an older list: the AI sets are what that list counted (nothing, since it knew
 * none of these agents), and the stored version is the old one.
 */
async function buildWithOldLists(storage: Storage, analytics: AnalyticsState, tenant: Tenant): Promise<void> {
  const events = [
    { path: '/guides/setup', userAgent: chrome, ip: '203.0.113.7' },
    ...newlyKnown.map((userAgent, index) => ({ path: '/guides/setup', userAgent, ip: `198.51.100.${index + 1}` })),
  ];
  await ingest(
    analytics,
    tenant.project,
    events.map((event, index) => ({ ...event, timestamp: new Date(day + 3_600_000 + index * 1000).toISOString() })),
  );
  const key = (await existingProjectKey(storage.db, analytics.ids, tenant.project.id))!;
  await foldPending(storage, key);
  await storage.db.deleteFrom('analytics_day_sets').where('project_key', '=', key).where('class', '=', ClassCode.ai).execute();
  await storage.db
    .updateTable('analytics_projects')
    .set((eb) => ({ version: eb('version', '+', 1) }))
    .where('project_key', '=', key)
    .execute();
  await storeClassificationVersion(storage.db, 'older-lists');
}

async function waitFor(check: () => Promise<boolean>): Promise<void> {
  for (let attempt = 0; attempt < 200 && !(await check()); attempt++) await new Promise((resolve) => setTimeout(resolve, 50));
}

describe.each(testDatabases)('reclassification when the AI agent lists change, on $dialect', (database) => {
  let storage: Storage;
  beforeAll(async () => {
    storage = await database.open();
  });
  afterAll(async () => storage.close());

  it('rebuilds history from the raw events at start, in the background, and records the new version', async () => {
    const tenant = await createTenant(storage);
    const analytics = createAnalyticsState(storage);
    await buildWithOldLists(storage, analytics, tenant);
    expect((await page(analytics, tenant.project.id, range)).totals).toEqual({ human: 1, ai: 0, total: 1 });

    const loop = startBackgroundLoop(analytics, { logger: silent, retentionDays: 0 });
    try {
      await waitFor(async () => (await storedClassificationVersion(storage.db)) === classificationVersion);
      expect(await storedClassificationVersion(storage.db)).toBe(classificationVersion);
      expect((await page(analytics, tenant.project.id, range)).totals).toEqual({ human: 1, ai: newlyKnown.length, total: 1 + newlyKnown.length });
    } finally {
      await loop.stop();
    }
  });

  it('leaves day sets alone when they were built with the current lists', async () => {
    const tenant = await createTenant(storage);
    const analytics = createAnalyticsState(storage);
    await buildWithOldLists(storage, analytics, tenant);
    await storeClassificationVersion(storage.db);
    const loop = startBackgroundLoop(analytics, { logger: silent, retentionDays: 0 });
    await loop.stop();
    expect((await page(analytics, tenant.project.id, range)).totals).toEqual({ human: 1, ai: 0, total: 1 });
  });
});
