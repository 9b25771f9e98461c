import { setTimeout } from 'node:timers/promises';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existingProjectKey } from '../../../src/analytics/ingest/dense-ids.ts';
import type { AppContext } from '../../../src/http/context.ts';
import type { Storage } from '../../../src/storage/dialect.ts';
import { createTenant } from '../../support/app.ts';
import { testDatabases } from '../../support/storage.ts';
import { fillIndex, startService } from './support.ts';

describe.each(testDatabases)('the limits of the docs served on $dialect', (database) => {
  let storage: Storage;
  let app: FastifyInstance;
  let base: string;
  let context: AppContext;

  beforeAll(async () => {
    storage = await database.open();
    ({ app, base, context } = await startService(storage, {
      discoveryRateLimit: 2,
      docsMcpRateLimitPerAddress: 3,
      docsMcpRateLimitPerProject: 100,
      docsNotFoundRecordLimitPerAddress: 3,
      docsNotFoundRecordLimitPerProject: 5,
      trustedProxies: ['127.0.0.1'],
    }));
  });
  afterAll(async () => {
    await app.close();
    await storage.close();
  });

  it('takes discovery search and page from one budget per organization, then answers 429 with Retry-After', async () => {
    const tenant = await createTenant(storage, { project: { docsPublic: true } });
    await fillIndex(storage, tenant.project.id);
    const post = (operation: string, body: object) =>
      fetch(`${base}/discovery/v1/${operation}/${tenant.project.id}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    expect((await post('search', { query: 'setup' })).headers.get('ratelimit-remaining')).toBe('1');
    expect((await post('page', { path: '/guides/setup' })).status).toBe(200);
    const refused = await post('search', { query: 'setup' });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await refused.json()).toMatchObject({ code: 'rate_limited' });
    const other = await createTenant(storage, { project: { docsPublic: true } });
    expect(
      (
        await fetch(`${base}/discovery/v1/search/${other.project.id}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{"query":"x"}',
        })
      ).status,
    ).toBe(200);
  });

  it('decides requests that arrive together one after another: exactly the budget is served, the rest is 429', async () => {
    const tenant = await createTenant(storage, { project: { docsPublic: true } });
    await fillIndex(storage, tenant.project.id);
    const answers = await Promise.all(
      Array.from({ length: 12 }, () =>
        fetch(`${base}/discovery/v1/search/${tenant.project.id}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{"query":"setup"}',
        }),
      ),
    );
    const served = answers.filter((answer) => answer.status === 200);
    expect(served.map((answer) => answer.headers.get('ratelimit-remaining')).sort()).toEqual(['0', '1']);
    expect(answers.filter((answer) => answer.status === 429)).toHaveLength(10);
    const hits = await storage.db.selectFrom('rate_limit_hits').select('at').where('bucket', '=', `discovery:${tenant.orgId}`).execute();
    expect(hits).toHaveLength(2);
  });

  it('limits calls to the MCP server per client address', async () => {
    const tenant = await createTenant(storage, { project: { docsPublic: true } });
    await fillIndex(storage, tenant.project.id);
    const ping = () =>
      fetch(`${base}/sites/${tenant.project.id}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
      });
    for (let call = 0; call < 3; call++) expect((await ping()).status).toBe(200);
    const refused = await ping();
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).not.toBeNull();
  });

  const getSite = (projectId: string, path: string, address: string) => fetch(`${base}/sites/${projectId}${path}`, { headers: { 'x-forwarded-for': address } });

  /**
   * The 404s recorded for `projectId`, once a page it served (after them) is recorded: recording is left to
   * commit in the background, so this waits for that page, then for any 404 still on its way.
   */
  async function recordedNotFound(projectId: string, atLeast: number): Promise<number> {
    const key = await existingProjectKey(storage.db, context.analytics.ids, projectId);
    const recorded = async (status: number) =>
      (await storage.db.selectFrom('analytics_events').select('at').where('project_key', '=', key!).where('status', '=', status).execute()).length;
    await expect.poll(() => recorded(200)).toBe(1);
    await expect.poll(() => recorded(404)).toBeGreaterThanOrEqual(atLeast);
    await setTimeout(300);
    return recorded(404);
  }

  it('answers every missing page 404 but records only the per-address budget of them', async () => {
    const tenant = await createTenant(storage, { project: { docsPublic: true } });
    await fillIndex(storage, tenant.project.id);
    const get = (path: string, address: string) => getSite(tenant.project.id, path, address);
    for (let index = 0; index < 8; index++) expect((await get(`/guessed-${index}.md`, '203.0.113.7')).status).toBe(404);
    expect((await get('/guessed-elsewhere.md', '2001:db8:1:2::9')).status).toBe(404);
    expect((await get('/guides/setup.md', '203.0.113.7')).status).toBe(200);
    expect(await recordedNotFound(tenant.project.id, 4)).toBe(4);
  });

  it('records no more of one project’s 404s than its budget, however many addresses ask', async () => {
    const tenant = await createTenant(storage, { project: { docsPublic: true } });
    await fillIndex(storage, tenant.project.id);
    // One /48 holds 65,536 /64s, each a fresh per-address budget.
    for (let network = 0; network < 12; network++)
      expect((await getSite(tenant.project.id, `/guessed-${network}.md`, `2001:db8:ffff:${network}::1`)).status).toBe(404);
    expect((await getSite(tenant.project.id, '/guides/setup.md', '192.0.2.1')).status).toBe(200);
    expect(await recordedNotFound(tenant.project.id, 5)).toBe(5);
  });

  it('keeps an address’s 404 budget per project: junk asked of one project leaves another’s 404s recorded', async () => {
    const junk = await createTenant(storage, { project: { docsPublic: true } });
    const real = await createTenant(storage, { project: { docsPublic: true } });
    await fillIndex(storage, junk.project.id);
    await fillIndex(storage, real.project.id);
    const shared = '198.51.100.20';
    for (let index = 0; index < 6; index++) expect((await getSite(junk.project.id, `/guessed-${index}.md`, shared)).status).toBe(404);
    expect((await getSite(real.project.id, '/moved-page.md', shared)).status).toBe(404);
    expect((await getSite(junk.project.id, '/guides/setup.md', shared)).status).toBe(200);
    expect((await getSite(real.project.id, '/guides/setup.md', shared)).status).toBe(200);
    expect(await recordedNotFound(junk.project.id, 3)).toBe(3);
    expect(await recordedNotFound(real.project.id, 1)).toBe(1);
  });
});
