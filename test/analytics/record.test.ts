import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordRequest, recordRequests } from '../../src/analytics/capture/record.ts';
import { assetReason } from '../../src/analytics/capture/assets.ts';
import { page } from '../../src/analytics/query/query.ts';
import { createAnalyticsState } from '../../src/analytics/state.ts';
import type { Storage } from '../../src/storage/dialect.ts';
import { createTenant } from '../support/app.ts';
import { testDatabases } from '../support/storage.ts';

const chrome = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';
const claudeBot = 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ClaudeBot/1.0; +claudebot@anthropic.com)';
const at = Date.UTC(2026, 10, 21, 9);
const range = { measure: 'visitors' as const, from: Date.UTC(2026, 10, 21), to: Date.UTC(2026, 10, 22), limit: 50, offset: 0 };

describe.each(testDatabases)('recording requests through capture/record.ts on $dialect', (database) => {
  let storage: Storage;
  beforeAll(async () => {
    storage = await database.open();
  });
  afterAll(async () => storage.close());

  it('counts a Markdown fetch by a known AI agent as an AI view of the page, a browser as human, and no asset', async () => {
    const tenant = await createTenant(storage);
    const analytics = createAnalyticsState(storage);
    const ai = await recordRequest(analytics, tenant.project, {
      path: '/guides/setup.md',
      method: 'GET',
      status: 200,
      userAgent: claudeBot,
      ip: '216.73.216.4',
      accept: 'text/markdown',
      timestamp: at,
    });
    expect(ai).toEqual({ stored: 1, skipped: {}, failure: null });
    const rest = await recordRequests(analytics, tenant.project, [
      { path: '/guides/setup', status: 200, userAgent: chrome, ip: '203.0.113.7', referrer: 'https://example.com/', timestamp: at },
      { path: '/images/logo.png', status: 200, userAgent: chrome, ip: '203.0.113.7', timestamp: at },
      { path: '/guides/setup', method: 'POST', status: 200, userAgent: chrome, ip: '203.0.113.8', timestamp: at },
    ]);
    expect(rest).toEqual({ stored: 1, skipped: { [assetReason]: 1, 'not a GET or HEAD request': 1 }, failure: null });
    const visitors = await page(analytics, tenant.project.id, range);
    expect(visitors.totals).toEqual({ human: 1, ai: 1, total: 2 });
    expect(visitors.rows).toEqual([{ path: '/guides/setup', human: 1, ai: 1, total: 2 }]);
  });

  it('drops the headers of an unsigned request, and resolves with a failure instead of rejecting', async () => {
    const tenant = await createTenant(storage);
    const analytics = createAnalyticsState(storage, undefined, { warn: () => {} });
    const unsigned = await recordRequest(analytics, tenant.project, {
      path: '/guides/setup',
      userAgent: chrome,
      // More headers than an event may carry: none of them is kept when the request is not signed.
      headers: Object.fromEntries(Array.from({ length: 40 }, (_, index) => [`x-header-${index}`, 'value'])),
      timestamp: at,
    });
    expect(unsigned).toEqual({ stored: 1, skipped: {}, failure: null });
    const closed = await database.open();
    await closed.close();
    const failed = await recordRequest(createAnalyticsState(closed, undefined, { warn: () => {} }), tenant.project, { path: '/guides/setup', timestamp: at });
    expect(failed.stored).toBe(0);
    expect(failed.failure).toEqual(expect.any(String));
  });
});
