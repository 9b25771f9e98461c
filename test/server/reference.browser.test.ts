import type { FastifyInstance } from 'fastify';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Storage } from '../../src/storage/dialect.ts';
import { testApp, testContext } from '../support/app.ts';
import { launchChromium } from '../support/chromium.ts';
import { testDatabases } from '../support/storage.ts';

describe('the API reference at /docs, the root and the favicon', () => {
  let storage: Storage;
  let app: FastifyInstance;
  let browser: Browser;
  let port: number;

  beforeAll(async () => {
    storage = await testDatabases[0].open();
    app = await testApp(testContext(storage));
    await app.listen({ port: 0, host: '127.0.0.1' });
    port = (app.server.address() as { port: number }).port;
    browser = await launchChromium({ args: ['--host-resolver-rules=MAP docs.test 127.0.0.1'] });
  });
  afterAll(async () => {
    await browser?.close();
    await app?.close();
    await storage?.close();
  });

  // Over plain HTTP at a host name other than localhost, `upgrade-insecure-requests` sent the page's scripts to https.
  it("renders its operations over plain HTTP at any host name, under Quire's name, from /openapi.json", async () => {
    const page = await browser.newPage();
    const failed: string[] = [];
    page.on('requestfailed', (request) => failed.push(request.url()));
    const openapi = page.waitForRequest((request) => new URL(request.url()).pathname === '/openapi.json');
    await page.goto(`http://docs.test:${port}/docs`);
    expect(await page.evaluate('isSecureContext')).toBe(false);
    await openapi;
    await page.locator('.opblock').first().waitFor();
    expect(await page.locator('.opblock').count()).toBeGreaterThan(10);
    expect(await page.getByText('/v2/agent/{projectId}/job', { exact: true }).first().isVisible()).toBe(true);
    expect(await page.title()).toBe('Quire API reference');
    expect(await page.locator('.topbar-wrapper img').getAttribute('src')).toMatch(/^data:image\/svg\+xml;base64,/);
    expect(failed).toEqual([]);
    await page.close();
  });

  it('sends a browser at / to the dashboard and tells an API client where things are', async () => {
    const browserVisit = await app.inject({ method: 'GET', url: '/', headers: { accept: 'text/html,application/xhtml+xml' } });
    expect(browserVisit.statusCode).toBe(303);
    expect(browserVisit.headers.location).toBe('/dashboard');
    const client = await app.inject({ method: 'GET', url: '/', headers: { accept: 'application/json' } });
    expect(client.statusCode).toBe(200);
    expect(client.json()).toMatchObject({ reference: '/docs', openapi: '/openapi.json', dashboard: '/dashboard' });
  });

  it('serves a favicon', async () => {
    const response = await app.inject({ method: 'GET', url: '/favicon.ico' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('image/svg+xml');
    expect(response.body).toContain('<svg');
  });
});
