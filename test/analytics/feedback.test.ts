import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { createKey } from '../../src/accounts/keys.ts';
import { purgeExpiredInteractions } from '../../src/analytics/feedback/retention.ts';
import type { Storage } from '../../src/storage/dialect.ts';
import { createTenant, testApp, testContext, type Tenant } from '../support/app.ts';
import { testDatabases } from '../support/storage.ts';

const chrome = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';
const range = 'dateFrom=2026-03-01&dateTo=2026-03-08';

describe.each(testDatabases)('feedback and searches API on $dialect', (database) => {
  let storage: Storage;
  let app: FastifyInstance;

  beforeAll(async () => {
    storage = await database.open();
    app = await testApp(testContext(storage, { config: { analyticsRateLimit: 10_000 } }));
  });
  afterAll(async () => {
    await app.close();
    await storage.close();
  });

  const post = (tenant: Tenant, events: unknown[]) =>
    app.inject({ method: 'POST', url: `/v1/analytics/${tenant.project.id}/events`, headers: tenant.auth, payload: { events } });
  const get = (tenant: Tenant, operation: string, query = range) =>
    app.inject({ method: 'GET', url: `/v1/analytics/${tenant.project.id}/${operation}?${query}`, headers: tenant.auth });
  const patch = (tenant: Tenant, id: string, status: unknown, auth = tenant.auth) =>
    app.inject({ method: 'PATCH', url: `/v1/analytics/${tenant.project.id}/feedback/${id}`, headers: auth, payload: { status } });

  it('takes feedback and searches out of a mixed request, keeps views as before, and reports bad events by index', async () => {
    const tenant = await createTenant(storage);
    const response = await post(tenant, [
      { timestamp: '2026-03-02T10:00:00Z', path: '/guides/setup', userAgent: chrome, ip: '203.0.113.7' },
      { kind: 'feedback', timestamp: '2026-03-02T10:01:00Z', path: '/guides/setup/', source: 'contextual', helpful: false, comment: 'Step 3 fails' },
      { kind: 'search', timestamp: '2026-03-02T10:02:00Z', query: '  Install  GUIDE ', hits: 4 },
      { kind: 'view', path: '/x' },
      { kind: 'feedback', path: '/x', source: 'contextual', comment: 'x'.repeat(2001) },
      { kind: 'feedback', path: '/x', source: 'thumbs_only' },
      { kind: 'search', query: 'a', hits: -1 },
      { kind: 'search', query: 'a', hits: 1, extra: true },
      { path: 'no-slash' },
    ]);
    expect(response.statusCode).toBe(202);
    const body = response.json();
    expect(body).toMatchObject({ accepted: 3, rejected: 6 });
    expect(body.errors.map((error: { index: number }) => error.index)).toEqual([3, 4, 5, 6, 7, 8]);
    expect(body.errors[0].message).toMatch(/kind "view" is not known/);
    expect(body.errors[1].message).toMatch(/comment is longer than 2000 characters/);
    expect(body.errors[5].message).toMatch(/URL path/);

    const visitors = await get(tenant, 'views');
    expect(visitors.json()).toMatchObject({ totals: { human: 1, ai: 0, total: 1 } });
    const feedback = await get(tenant, 'feedback');
    expect(feedback.statusCode).toBe(200);
    expect(feedback.json()).toEqual({
      feedback: [
        {
          id: expect.stringMatching(/^fbk_/),
          path: '/guides/setup',
          comment: 'Step 3 fails',
          createdAt: '2026-03-02T10:01:00.000Z',
          source: 'contextual',
          status: 'pending',
          helpful: false,
        },
      ],
      nextCursor: null,
      hasMore: false,
    });
    const searches = await get(tenant, 'searches');
    expect(searches.json()).toEqual({
      searches: [{ searchQuery: 'install guide', searches: 1, hits: 4, ctr: 0, topClickedPage: null, lastSearchedAt: '2026-03-02T10:02:00.000Z' }],
      totalSearches: 1,
      nextCursor: null,
    });
  });

  it('pages feedback with a cursor, filters by source and status, counts per page, and moves items between statuses', async () => {
    const tenant = await createTenant(storage);
    const events = [];
    for (let index = 0; index < 7; index++) {
      events.push({
        kind: 'feedback',
        timestamp: Date.UTC(2026, 2, 1 + (index % 3), 12, index),
        path: index < 4 ? '/a' : '/b',
        source: index % 2 === 0 ? 'thumbs_only' : 'code_snippet',
        helpful: index % 3 === 0,
        code: index % 2 === 0 ? undefined : 'npm install',
        lang: index % 2 === 0 ? undefined : 'sh',
        contact: index === 1 ? 'reader@example.com' : undefined,
      });
    }
    expect((await post(tenant, events)).json()).toMatchObject({ accepted: 7, rejected: 0 });

    const seen: { id: string; createdAt: string }[] = [];
    let cursor = '';
    for (let page = 0; page < 4; page++) {
      const body = (await get(tenant, 'feedback', `${range}&limit=3${cursor ? `&cursor=${cursor}` : ''}`)).json();
      seen.push(...body.feedback);
      if (!body.hasMore) {
        expect(body.nextCursor).toBeNull();
        break;
      }
      cursor = body.nextCursor;
    }
    expect(seen).toHaveLength(7);
    expect(new Set(seen.map((item) => item.id)).size).toBe(7);
    const times = seen.map((item) => item.createdAt);
    expect(times).toEqual([...times].sort().reverse());
    expect(seen.find((item) => 'contact' in item)).toMatchObject({ contact: 'reader@example.com', code: 'npm install', lang: 'sh' });

    const code = (await get(tenant, 'feedback', `${range}&source=code_snippet`)).json();
    expect(code.feedback).toHaveLength(3);
    expect((await get(tenant, 'feedback', `${range}&source=nope`)).statusCode).toBe(400);
    expect((await get(tenant, 'feedback', `${range}&cursor=garbage`)).json()).toMatchObject({ code: 'invalid_request' });

    const byPage = (await get(tenant, 'feedback/by-page')).json();
    expect(byPage).toEqual({
      feedback: [
        { path: '/a', thumbsUp: 2, thumbsDown: 2, code: 2, total: 4 },
        { path: '/b', thumbsUp: 1, thumbsDown: 2, code: 1, total: 3 },
      ],
      hasMore: false,
    });

    const target = code.feedback[0];
    const changed = await patch(tenant, target.id, 'resolved');
    expect(changed.statusCode).toBe(200);
    expect(changed.json()).toMatchObject({ id: target.id, status: 'resolved' });
    expect((await patch(tenant, target.id, 'resolved')).json()).toMatchObject({ status: 'resolved' });
    expect((await patch(tenant, target.id, 'done')).statusCode).toBe(400);
    const resolved = (await get(tenant, 'feedback', `${range}&status=resolved,dismissed`)).json();
    expect(resolved.feedback.map((item: { id: string }) => item.id)).toEqual([target.id]);
    const pending = (await get(tenant, 'feedback/by-page', `${range}&status=pending`)).json();
    expect(pending.feedback.reduce((sum: number, row: { total: number }) => sum + row.total, 0)).toBe(6);
    const resolvedPages = (await get(tenant, 'feedback/by-page', `${range}&status=resolved&source=code_snippet`)).json();
    expect(resolvedPages.feedback).toEqual([{ path: target.path, thumbsUp: target.helpful ? 1 : 0, thumbsDown: target.helpful ? 0 : 1, code: 1, total: 1 }]);
    const limited = (await get(tenant, 'feedback/by-page', `${range}&limit=1`)).json();
    expect(limited).toMatchObject({ feedback: [{ path: '/a' }], hasMore: true });
  });

  it('counts partial days from the items themselves', async () => {
    const tenant = await createTenant(storage);
    await post(tenant, [
      { kind: 'feedback', timestamp: '2026-03-02T08:00:00Z', path: '/a', source: 'thumbs_only', helpful: true },
      { kind: 'feedback', timestamp: '2026-03-02T20:00:00Z', path: '/a', source: 'thumbs_only', helpful: true },
      { kind: 'search', timestamp: '2026-03-02T08:00:00Z', query: 'early', hits: 1 },
      { kind: 'search', timestamp: '2026-03-02T20:00:00Z', query: 'late', hits: 0 },
    ]);
    const window = 'dateFrom=2026-03-02T12:00:00Z&dateTo=2026-03-03T00:00:00Z';
    expect((await get(tenant, 'feedback/by-page', window)).json().feedback).toEqual([{ path: '/a', thumbsUp: 1, thumbsDown: 0, code: 0, total: 1 }]);
    expect((await get(tenant, 'feedback', window)).json().feedback).toHaveLength(1);
    expect((await get(tenant, 'searches', window)).json()).toMatchObject({ searches: [{ searchQuery: 'late', hits: 0 }], totalSearches: 1 });
  });

  it('joins a later click to its search by searchId, once, and ranks queries by searches', async () => {
    const tenant = await createTenant(storage);
    const at = (minute: number) => Date.UTC(2026, 2, 3, 9, minute);
    await post(tenant, [
      { kind: 'search', timestamp: at(0), query: 'Webhooks', hits: 3, searchId: 's1' },
      { kind: 'search', timestamp: at(1), query: 'webhooks', hits: 2, searchId: 's2' },
      { kind: 'search', timestamp: at(2), query: 'webhooks', hits: 2, searchId: 's3', clickedPath: '/api/webhooks' },
      { kind: 'search', timestamp: at(3), query: 'sso', hits: 0 },
      { kind: 'search', timestamp: at(4), query: 'SSO', hits: 0, searchId: 's4' },
      { kind: 'search', timestamp: at(5), query: 'billing', hits: 1 },
    ]);
    // The clicks of s1 and s2 arrive later; s1's second click and a repeated search s2 count nothing.
    await post(tenant, [
      { kind: 'search', timestamp: at(10), query: 'webhooks', hits: 3, searchId: 's1', clickedPath: '/guides/webhooks' },
      { kind: 'search', timestamp: at(11), query: 'webhooks', hits: 3, searchId: 's1', clickedPath: '/api/webhooks' },
      { kind: 'search', timestamp: at(12), query: 'webhooks', hits: 2, searchId: 's2', clickedPath: '/guides/webhooks' },
      { kind: 'search', timestamp: at(13), query: 'webhooks', hits: 2, searchId: 's2' },
    ]);
    const body = (await get(tenant, 'searches')).json();
    expect(body.totalSearches).toBe(6);
    expect(body.searches).toEqual([
      { searchQuery: 'webhooks', searches: 3, hits: 2, ctr: 1, topClickedPage: '/guides/webhooks', lastSearchedAt: new Date(at(2)).toISOString() },
      { searchQuery: 'sso', searches: 2, hits: 0, ctr: 0, topClickedPage: null, lastSearchedAt: new Date(at(4)).toISOString() },
      { searchQuery: 'billing', searches: 1, hits: 1, ctr: 0, topClickedPage: null, lastSearchedAt: new Date(at(5)).toISOString() },
    ]);
    const first = (await get(tenant, 'searches', `${range}&limit=2`)).json();
    expect(first.searches.map((row: { searchQuery: string }) => row.searchQuery)).toEqual(['webhooks', 'sso']);
    const second = (await get(tenant, 'searches', `${range}&limit=2&cursor=${first.nextCursor}`)).json();
    expect(second).toMatchObject({ searches: [{ searchQuery: 'billing' }], nextCursor: null });
    // The widest range the API takes reads only the days that have searches (it listed every day of it, for minutes).
    const widest = (await get(tenant, 'searches', 'dateFrom=0100-01-01&dateTo=9999-12-31')).json();
    expect(widest.searches).toEqual(body.searches);
    expect(widest.totalSearches).toBe(6);
  });

  it('ranks exactly when no query dominates (the per-day lists have to deepen)', async () => {
    const tenant = await createTenant(storage);
    // 300 queries a day over 5 days with near-equal counts: the first list depth (64) cannot decide.
    const events = [];
    for (let day = 0; day < 5; day++) {
      for (let query = 0; query < 300; query++) {
        const count = 1 + ((query * 7 + day * 13) % 3);
        for (let repeat = 0; repeat < count; repeat++)
          events.push({ kind: 'search', timestamp: Date.UTC(2026, 2, 1 + day, 1, repeat), query: `q${query}`, hits: 1 });
      }
    }
    for (let start = 0; start < events.length; start += 5000) await post(tenant, events.slice(start, start + 5000));
    const expected = new Map<string, number>();
    for (const event of events) expected.set(event.query, (expected.get(event.query) ?? 0) + 1);
    const ranked = [...expected].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
    const got: [string, number][] = [];
    let cursor = '';
    for (;;) {
      const body = (await get(tenant, 'searches', `${range}&limit=100${cursor ? `&cursor=${cursor}` : ''}`)).json();
      got.push(...body.searches.map((row: { searchQuery: string; searches: number }) => [row.searchQuery, row.searches] as [string, number]));
      if (!body.nextCursor) break;
      cursor = body.nextCursor;
    }
    expect(got).toEqual(ranked);
  });

  it('answers another organization 404 on every operation, including PATCH of a real feedback id', async () => {
    const owner = await createTenant(storage);
    const other = await createTenant(storage);
    await post(owner, [{ kind: 'feedback', timestamp: '2026-03-02T10:00:00Z', path: '/a', source: 'contextual', comment: 'mine' }]);
    const [item] = (await get(owner, 'feedback')).json().feedback;
    for (const operation of ['feedback', 'feedback/by-page', 'searches']) {
      const response = await app.inject({ method: 'GET', url: `/v1/analytics/${owner.project.id}/${operation}?${range}`, headers: other.auth });
      expect(response.statusCode, operation).toBe(404);
    }
    const crossProject = await patch(other, item.id, 'dismissed');
    expect(crossProject.statusCode).toBe(404);
    const crossOrg = await app.inject({
      method: 'PATCH',
      url: `/v1/analytics/${owner.project.id}/feedback/${item.id}`,
      headers: other.auth,
      payload: { status: 'dismissed' },
    });
    expect(crossOrg.statusCode).toBe(404);
    expect((await patch(owner, 'fbk_00000000000000000000000000', 'resolved')).statusCode).toBe(404);
    const { key } = await createKey(storage.db, owner.orgId, { scopes: ['read'] });
    expect((await patch(owner, item.id, 'resolved', { authorization: `Bearer ${key}` })).statusCode).toBe(403);
    expect((await get(owner, 'feedback')).json().feedback[0].status).toBe('pending');
  });

  it('checks date rules like visitors and shares the analytics limit', async () => {
    const tenant = await createTenant(storage);
    expect((await get(tenant, 'searches', 'dateFrom=2026-03-08&dateTo=2026-03-01')).statusCode).toBe(400);
    expect((await get(tenant, 'feedback', 'dateFrom=yesterday')).statusCode).toBe(400);
    expect((await get(tenant, 'feedback', `${range}&limit=101`)).statusCode).toBe(400);
    const response = await get(tenant, 'feedback/by-page');
    expect(response.statusCode).toBe(200);
    expect(response.headers['ratelimit-limit']).toBe('10000');
  });

  it('purges feedback and searches with their aggregates by whole days past the retention period', async () => {
    const tenant = await createTenant(storage);
    await post(tenant, [
      { kind: 'feedback', timestamp: '2026-03-01T10:00:00Z', path: '/old', source: 'contextual', comment: 'old', contact: 'a@example.com' },
      { kind: 'feedback', timestamp: '2026-03-05T10:00:00Z', path: '/new', source: 'contextual', comment: 'new' },
      { kind: 'search', timestamp: '2026-03-01T10:00:00Z', query: 'old query', hits: 0, searchId: 'old', clickedPath: '/old' },
      { kind: 'search', timestamp: '2026-03-05T10:00:00Z', query: 'new query', hits: 1 },
    ]);
    await purgeExpiredInteractions(storage, 3, Date.parse('2026-03-05T12:00:00Z'));
    expect((await get(tenant, 'feedback')).json().feedback.map((item: { comment: string }) => item.comment)).toEqual(['new']);
    expect((await get(tenant, 'feedback/by-page')).json().feedback.map((row: { path: string }) => row.path)).toEqual(['/new']);
    expect((await get(tenant, 'searches')).json()).toMatchObject({ totalSearches: 1, searches: [{ searchQuery: 'new query' }] });
    const leftovers = await storage.db.selectFrom('analytics_search_clicks').selectAll().execute();
    expect(leftovers.filter((row) => row.query === 'old query')).toEqual([]);
  });
});
