import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { updateProject } from '../../src/accounts/projects.ts';
import type { Storage } from '../../src/storage/dialect.ts';
import { launchChromium } from '../support/chromium.ts';
import { createTenant, testApp, testContext } from '../support/app.ts';
import { testDatabases } from '../support/storage.ts';

// Headless Chromium announces itself as HeadlessChrome, which bot lists rightly exclude; a person's browser does not.
const desktopChrome = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';

describe('browser tracker in Chromium', () => {
  const [database] = testDatabases;
  let storage: Storage;
  let app: FastifyInstance;
  let site: Server;
  let quireUrl: string;
  let sitePort: number;

  beforeAll(async () => {
    storage = await database.open();
    app = await testApp(testContext(storage));
    quireUrl = await app.listen({ port: 0, host: '127.0.0.1' });
    // The documentation site: every page embeds the tracker of the project named in its query.
    site = createServer((request, response) => {
      const query = new URL(request.url ?? '/', 'http://site').searchParams;
      const project = query.get('project') ?? '';
      response.setHeader('content-type', 'text/html');
      if (query.has('referrer-policy')) response.setHeader('referrer-policy', query.get('referrer-policy')!);
      response.end(`<!doctype html><title>Setup</title><h1>Setup</h1><script src="${quireUrl}/script.js" data-project="${project}" defer></script>`);
    });
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    const address = site.address();
    sitePort = typeof address === 'object' && address ? address.port : 0;
  });
  afterAll(async () => {
    await app.close();
    await new Promise((resolve) => site.close(resolve));
    await storage.close();
  });

  /** A project whose tracker domain is `host`, and a way to read its visitors once the tracker's view has landed. */
  async function trackedProject(host: string) {
    const tenant = await createTenant(storage);
    await updateProject(storage.db, tenant.project.id, { trackerDomains: [host] });
    return {
      tenant,
      async visitors() {
        let body: { totals: { human: number }; visitors: { path: string; human: number }[] } | undefined;
        for (let attempt = 0; attempt < 50 && !body?.totals.human; attempt++) {
          const response = await app.inject({ method: 'GET', url: `/v1/analytics/${tenant.project.id}/visitors`, headers: tenant.auth });
          body = response.json();
          if (!body?.totals.human) await new Promise((resolve) => setTimeout(resolve, 100));
        }
        return body;
      },
    };
  }

  it('counts a page view as a human visitor, with no cookies set', async () => {
    const siteUrl = `http://127.0.0.1:${sitePort}`;
    const { tenant, visitors } = await trackedProject(new URL(siteUrl).host);
    const browser = await launchChromium();
    try {
      const context = await browser.newContext({ userAgent: desktopChrome });
      const page = await context.newPage();
      const collected = page.waitForRequest((request) => request.url().endsWith('/v1/collect'));
      await page.goto(`${siteUrl}/guides/setup?utm_source=test&project=${tenant.project.id}`);
      await collected;
      await page.goto(`${siteUrl}/guides/setup?project=${tenant.project.id}`);
      expect(await context.cookies()).toEqual([]);
      expect(await visitors()).toMatchObject({ totals: { human: 1, ai: 0, total: 1 }, visitors: [{ path: '/guides/setup', human: 1, ai: 0, total: 1 }] });
    } finally {
      await browser.close();
    }
  });

  // Plain http:// on a real host name is not a secure context: APIs such as crypto.randomUUID are missing there.
  it('counts a view from a plain-HTTP site on a host name other than localhost', async () => {
    const siteUrl = `http://docs.test:${sitePort}`;
    const { tenant, visitors } = await trackedProject(new URL(siteUrl).host);
    const browser = await launchChromium({ args: ['--host-resolver-rules=MAP docs.test 127.0.0.1'] });
    try {
      const page = await (await browser.newContext({ userAgent: desktopChrome })).newPage();
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(error.message));
      await page.goto(`${siteUrl}/guides/start?project=${tenant.project.id}`);
      expect(await page.evaluate('isSecureContext')).toBe(false);
      expect(await visitors()).toMatchObject({ totals: { human: 1 }, visitors: [{ path: '/guides/start', human: 1 }] });
      expect(errors).toEqual([]);
    } finally {
      await browser.close();
    }
  });

  // Such a site's beacons would carry `Origin: null`, which the collect endpoint refuses (a sandboxed frame sends it too).
  it('counts a view from a site that sends Referrer-Policy: no-referrer', async () => {
    const siteUrl = `http://127.0.0.1:${sitePort}`;
    const { tenant, visitors } = await trackedProject(new URL(siteUrl).host);
    const browser = await launchChromium();
    try {
      const page = await (await browser.newContext({ userAgent: desktopChrome })).newPage();
      await page.goto(`${siteUrl}/guides/private?project=${tenant.project.id}&referrer-policy=no-referrer`);
      expect(await visitors()).toMatchObject({ totals: { human: 1 }, visitors: [{ path: '/guides/private', human: 1 }] });
    } finally {
      await browser.close();
    }
  });
});
