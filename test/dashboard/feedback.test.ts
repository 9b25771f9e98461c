import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import type { Storage } from '../../src/storage/dialect.ts';
import { launchChromium } from '../support/chromium.ts';
import { createTenant, testApp, testContext, type Tenant } from '../support/app.ts';
import { testDatabases } from '../support/storage.ts';
import { form, signIn, type SignedIn } from './session.ts';

const hostile = '<script>alert("x")</script><img src=x onerror=alert(1)>';
const day = new Date().toISOString().slice(0, 10);

describe.each(testDatabases)('dashboard feedback page on $dialect', (database) => {
  let storage: Storage;
  let app: FastifyInstance;
  let tenant: Tenant;
  let session: SignedIn;

  beforeAll(async () => {
    storage = await database.open();
    app = await testApp(testContext(storage));
    tenant = await createTenant(storage);
    session = await signIn(app, storage, tenant.orgId);
    const now = Date.now();
    const events = [
      { kind: 'feedback', timestamp: now, path: '/guides/setup', source: 'contextual', helpful: false, comment: hostile, contact: '"><b>me</b>' },
      { kind: 'feedback', timestamp: now, path: '/guides/setup', source: 'code_snippet', code: '</pre><script>1</script>', filename: '<b>f</b>', lang: 'sh' },
      { kind: 'feedback', timestamp: now, path: `/${'very-long-path-segment-'.repeat(12)}`, source: 'contextual', comment: 'w'.repeat(600) },
      { kind: 'search', timestamp: now, query: '<i>sso</i>', hits: 0 },
      { kind: 'search', timestamp: now, query: 'webhooks', hits: 3 },
    ];
    const response = await app.inject({ method: 'POST', url: `/v1/analytics/${tenant.project.id}/events`, headers: tenant.auth, payload: { events } });
    expect(response.json()).toMatchObject({ accepted: 5 });
  });
  afterAll(async () => {
    await app.close();
    await storage.close();
  });

  const page = (query = '') =>
    app.inject({ method: 'GET', url: `/dashboard/projects/${tenant.project.id}/feedback${query}`, headers: { cookie: session.cookie } });

  it('shows feedback per page, items, top searches and searches without hits, with reader text escaped', async () => {
    const response = await page();
    expect(response.statusCode).toBe(200);
    const body = response.body;
    expect(body).not.toContain('<script>alert');
    expect(body).not.toContain('<img src=x');
    expect(body).not.toContain('<b>me</b>');
    expect(body).not.toContain('<i>sso</i>');
    expect(body).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;');
    expect(body).toContain('&lt;/pre&gt;&lt;script&gt;1&lt;/script&gt;');
    expect(body).toMatch(/id="feedback-pages"[\s\S]*\/guides\/setup/);
    expect(body).toMatch(/id="no-hit-searches"[\s\S]*&lt;i&gt;sso&lt;\/i&gt;/);
    expect(body).toMatch(/id="top-searches"[\s\S]*webhooks/);
    expect(body).toContain('data-no-hits="1"');
    const filtered = await page(`?from=${day}&to=${day}&source=code_snippet`);
    expect(filtered.body).not.toContain('&lt;script&gt;alert');
    expect(filtered.body).toContain('&lt;b&gt;f&lt;/b&gt;');
    expect((await page('?source=nonsense')).statusCode).toBe(400);
  });

  it('changes an item’s status from its form, and refuses another organization’s item and forms without the token', async () => {
    const item = await storage.db.selectFrom('analytics_feedback').select('id').where('comment', '=', hostile).executeTakeFirstOrThrow();
    const post = (projectId: string, id: string, fields: Record<string, string>, cookie = session.cookie) =>
      app.inject({
        method: 'POST',
        url: `/dashboard/projects/${projectId}/feedback/${id}/status`,
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
        payload: form(fields),
      });
    const changed = await post(tenant.project.id, item.id, {
      csrf: session.csrf,
      status: 'in_progress',
      back: `/dashboard/projects/${tenant.project.id}/feedback?status=in_progress`,
    });
    expect(changed.statusCode).toBe(303);
    expect(changed.headers.location).toBe(`/dashboard/projects/${tenant.project.id}/feedback?status=in_progress`);
    const inProgress = await page('?status=in_progress');
    expect(inProgress.body).toContain(`data-id="${item.id}"`);
    expect(inProgress.body).toMatch(/<option value="in_progress" selected>/);
    expect((await post(tenant.project.id, item.id, { csrf: 'wrong', status: 'resolved' })).statusCode).toBe(403);
    expect((await post(tenant.project.id, item.id, { csrf: session.csrf, status: 'gone' })).statusCode).toBe(400);
    const offsite = await post(tenant.project.id, item.id, { csrf: session.csrf, status: 'resolved', back: 'https://evil.example/' });
    expect(offsite.headers.location).toBe(`/dashboard/projects/${tenant.project.id}/feedback`);

    const other = await createTenant(storage);
    const otherSession = await signIn(app, storage, other.orgId);
    expect((await post(tenant.project.id, item.id, { csrf: otherSession.csrf, status: 'dismissed' }, otherSession.cookie)).statusCode).toBe(404);
    expect((await post(other.project.id, item.id, { csrf: otherSession.csrf, status: 'dismissed' }, otherSession.cookie)).statusCode).toBe(404);
    const stored = await storage.db.selectFrom('analytics_feedback').select('status').where('id', '=', item.id).executeTakeFirstOrThrow();
    expect(stored.status).toBe(2); // resolved by the last own change; neither of the other organization's posts applied
  });

  it.runIf(database.dialect === 'sqlite')(
    'fits 390 and 1,280 px wide screens, and Save on the first row changes that row alone (each form in its own row)',
    async () => {
      const url = await app.listen({ port: 0, host: '127.0.0.1' });
      const browser = await launchChromium();
      try {
        for (const [width, next] of [
          [390, 'dismissed'],
          [1280, 'in_progress'],
        ] as const) {
          const context = await browser.newContext({ viewport: { width, height: 844 } });
          const [name, value] = session.cookie.split('=');
          await context.addCookies([{ name, value, url }]);
          const tab = await context.newPage();
          const dialogs: string[] = [];
          tab.on('dialog', (dialog) => {
            dialogs.push(dialog.message());
            void dialog.dismiss();
          });
          await tab.goto(`${url}/dashboard/projects/${tenant.project.id}/feedback`);
          expect(await tab.getByRole('heading', { level: 2, name: 'Searches with no hits' }).count()).toBe(1);
          expect(await tab.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(width);
          const rows = tab.locator('#feedback-items tbody tr');
          expect(await rows.count()).toBe(3);
          const statuses = async () =>
            Object.fromEntries(
              await Promise.all(
                (await rows.all()).map(async (row) => [await row.getAttribute('data-id'), await row.locator('select[name="status"]').inputValue()]),
              ),
            ) as Record<string, string>;
          const before = await statuses();
          // Every form sits inside its own row, not stacked in one fixed box over the page.
          for (const row of await rows.all()) {
            const rowBox = (await row.boundingBox())!;
            const formBox = (await row.locator('form').boundingBox())!;
            expect(formBox.y).toBeGreaterThanOrEqual(rowBox.y - 1);
            expect(formBox.y + formBox.height).toBeLessThanOrEqual(rowBox.y + rowBox.height + 1);
          }
          const first = rows.first();
          const firstId = (await first.getAttribute('data-id'))!;
          expect(before[firstId]).not.toBe(next);
          await first.locator('select[name="status"]').selectOption(next);
          await Promise.all([tab.waitForURL(/\/feedback\?/), first.getByRole('button', { name: 'Save' }).click()]);
          const after = await statuses();
          expect(after).toEqual({ ...before, [firstId]: next });
          expect(dialogs).toEqual([]);
          await context.close();
        }
      } finally {
        await browser.close();
      }
    },
  );
});
