import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Storage } from '../../src/storage/dialect.ts';
import { launchChromium } from '../support/chromium.ts';
import { createTenant, testApp, testContext, type Tenant } from '../support/app.ts';
import { testDatabases } from '../support/storage.ts';
import { form, signIn, type SignedIn } from './session.ts';

const chrome = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';
const hostile = '<script>alert("x")</script> rate limits';

describe.each(testDatabases)('dashboard gaps page on $dialect', (database) => {
  let storage: Storage;
  let app: FastifyInstance;
  let tenant: Tenant;
  let session: SignedIn;

  beforeAll(async () => {
    storage = await database.open();
    app = await testApp(testContext(storage, { config: { analyticsRateLimit: 10_000 } }));
    tenant = await createTenant(storage);
    session = await signIn(app, storage, tenant.orgId);
    const events = [
      { kind: 'search', query: 'rate limits', hits: 0, ip: '198.51.100.1', userAgent: chrome },
      { kind: 'search', query: 'ratelimit', hits: 0, ip: '198.51.100.2', userAgent: chrome },
      { kind: 'search', query: hostile, hits: 0, ip: '198.51.100.3', userAgent: chrome },
      { path: '/old/page', status: 404, ip: '198.51.100.4', userAgent: chrome },
    ];
    const response = await app.inject({ method: 'POST', url: `/v1/analytics/${tenant.project.id}/events`, headers: tenant.auth, payload: { events } });
    expect(response.json()).toMatchObject({ accepted: 4 });
  });
  afterAll(async () => {
    await app.close();
    await storage.close();
  });

  const page = (projectId = tenant.project.id, query = '', cookie = session.cookie) =>
    app.inject({ method: 'GET', url: `/dashboard/projects/${projectId}/gaps${query}`, headers: { cookie } });

  it('ranks gaps with their evidence, escapes what readers typed, and is linked from the analytics page', async () => {
    const response = await page();
    expect(response.statusCode).toBe(200);
    expect(response.body).not.toContain('<script>alert');
    expect(response.body).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; rate limits');
    const rows = [...response.body.matchAll(/<tr data-id="(gap_[0-9a-f]+)">/g)].map((match) => match[1]);
    expect(rows).toHaveLength(3);
    expect(response.body.indexOf('No answer for')).toBeLessThan(response.body.indexOf('/old/page is not found (404)'));
    expect(response.body).toContain('2 searches');
    expect((await page(tenant.project.id, '?status=nonsense')).statusCode).toBe(400);
    const analytics = await app.inject({ method: 'GET', url: `/dashboard/projects/${tenant.project.id}/analytics`, headers: { cookie: session.cookie } });
    expect(analytics.body).toContain(`href="/dashboard/projects/${tenant.project.id}/gaps?`);
    const other = await createTenant(storage);
    const otherSession = await signIn(app, storage, other.orgId);
    expect((await page(tenant.project.id, '', otherSession.cookie)).statusCode).toBe(404);
    const refused = await app.inject({
      method: 'POST',
      url: `/dashboard/projects/${tenant.project.id}/gaps/${rows[0]}/status`,
      headers: { cookie: otherSession.cookie, 'content-type': 'application/x-www-form-urlencoded' },
      payload: form({ csrf: otherSession.csrf, status: 'dismissed', back: '' }),
    });
    expect(refused.statusCode).toBe(404);
  });

  it.runIf(database.dialect === 'sqlite')('fits a 390 px screen; Fix with agent opens the job, which the gap then links to', async () => {
    const url = await app.listen({ port: 0, host: '127.0.0.1' });
    const browser = await launchChromium();
    try {
      const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
      const [name, value] = session.cookie.split('=');
      await context.addCookies([{ name, value, url }]);
      const tab = await context.newPage();
      await tab.goto(`${url}/dashboard/projects/${tenant.project.id}/gaps`);
      expect(await tab.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
      const first = tab.locator('#gaps tbody tr').first();
      expect(await first.locator('strong').first().textContent()).toContain('No answer for');
      await Promise.all([tab.waitForURL(/\/jobs\/job_/), first.getByRole('button', { name: /Fix with agent/ }).click()]);
      const jobId = /\/jobs\/(job_[0-9A-Z]+)/.exec(tab.url())![1];
      const job = await storage.db.selectFrom('jobs').select(['prompt', 'origin']).where('id', '=', jobId).executeTakeFirstOrThrow();
      expect(job.origin).toBe('gap');
      expect(job.prompt).toContain('2 searches with no results');
      await tab.goto(`${url}/dashboard/projects/${tenant.project.id}/gaps`);
      const row = tab.locator('#gaps tbody tr').first();
      expect(await row.textContent()).toContain('in progress');
      expect(await row.getByRole('link', { name: 'Job' }).getAttribute('href')).toBe(`/dashboard/projects/${tenant.project.id}/jobs/${jobId}`);
      expect(await tab.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
      // Dismiss the other gap: it leaves the default list.
      const broken = tab.locator('#gaps tbody tr', { hasText: '/old/page' });
      await Promise.all([tab.waitForURL(/\/gaps\?/), broken.getByRole('button', { name: /Dismiss/ }).click()]);
      expect(await tab.locator('#gaps tbody tr', { hasText: '/old/page' }).count()).toBe(0);
      await context.close();
    } finally {
      await browser.close();
    }
  });

  it('shows the pull-request link of a gap’s job only once the job ended, and only an http(s) one, on the page and in the API', async () => {
    const api = (url: string, method: 'GET' | 'POST' = 'GET') =>
      app.inject({ method, url: `/v1/analytics/${tenant.project.id}/gaps${url}`, headers: tenant.auth });
    const gapId = (await api('')).json().gaps.find((gap: { status: string }) => gap.status === 'open').id as string;
    const job = await api(`/${gapId}/job`, 'POST');
    expect(job.statusCode).toBe(201);
    const shown = async () => ({
      api: (await api('?status=in_progress')).json().gaps.find((gap: { id: string }) => gap.id === gapId).prLink,
      page: (await page(tenant.project.id, '?status=in_progress')).body,
    });
    // A row stored before links were checked.
    await storage.db.updateTable('jobs').set({ status: 'completed', pr_link: 'javascript:alert(document.domain)' }).where('id', '=', job.json().id).execute();
    let now = await shown();
    expect(now.api).toBeNull();
    expect(now.page).not.toContain('javascript:');
    await storage.db.updateTable('jobs').set({ status: 'active', pr_link: 'https://github.com/acme/docs/pull/7' }).where('id', '=', job.json().id).execute();
    now = await shown();
    expect(now.api).toBeNull();
    expect(now.page).not.toContain('/pull/7');
    await storage.db.updateTable('jobs').set({ status: 'completed' }).where('id', '=', job.json().id).execute();
    now = await shown();
    expect(now.api).toBe('https://github.com/acme/docs/pull/7');
    expect(now.page).toContain('href="https://github.com/acme/docs/pull/7"');
  });
});
