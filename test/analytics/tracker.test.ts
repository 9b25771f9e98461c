import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { updateProject } from '../../src/accounts/projects.ts';
import { analyticsRoutes } from '../../src/analytics/http/routes.ts';
import type { Storage } from '../../src/storage/dialect.ts';
import { launchChromium } from '../support/chromium.ts';
import { createTenant, testApp, testContext, type Tenant } from '../support/app.ts';
import { testDatabases } from '../support/storage.ts';

// Headless Chromium announces itself as HeadlessChrome, which bot lists rightly exclude; a person's browser does not.
const desktopChrome = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';

describe('browser tracker in Chromium', () => {
  const [database] = testDatabases;
  let storage: Storage;
  let app: FastifyInstance;
  let site: Server;
  let tenant: Tenant;
  let quireUrl: string;
  let siteUrl: string;

  beforeAll(async () => {
    storage = await database.open();
    app = await testApp(testContext(storage), [analyticsRoutes]);
    quireUrl = await app.listen({ port: 0, host: '127.0.0.1' });
    tenant = await createTenant(storage);
    site = createServer((_request, response) => {
      response.setHeader('content-type', 'text/html');
      response.end(`<!doctype html><title>Setup</title><h1>Setup</h1><script src="${quireUrl}/script.js" data-project="${tenant.project.id}" defer></script>`);
    });
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    const address = site.address();
    siteUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    await updateProject(storage.db, tenant.project.id, { trackerDomains: [new URL(siteUrl).host] });
  });
  afterAll(async () => {
    await app.close();
    await new Promise((resolve) => site.close(resolve));
    await storage.close();
  });

  it('counts a page view as a human visitor, with no cookies set', async () => {
    const browser = await launchChromium();
    try {
      const context = await browser.newContext({ userAgent: desktopChrome });
      const page = await context.newPage();
      const collected = page.waitForRequest((request) => request.url().endsWith('/v1/collect'));
      await page.goto(`${siteUrl}/guides/setup?utm_source=test`);
      await collected;
      await page.goto(`${siteUrl}/guides/setup`);
      expect(await context.cookies()).toEqual([]);
      let body: { totals: { human: number }; visitors: { path: string; human: number }[] } | undefined;
      for (let attempt = 0; attempt < 50 && !body?.totals.human; attempt++) {
        const response = await app.inject({ method: 'GET', url: `/v1/analytics/${tenant.project.id}/visitors`, headers: tenant.auth });
        body = response.json();
        if (!body?.totals.human) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(body).toMatchObject({ totals: { human: 1, ai: 0, total: 1 }, visitors: [{ path: '/guides/setup', human: 1, ai: 0, total: 1 }] });
    } finally {
      await browser.close();
    }
  });

});
