import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { updateProject } from '../../src/accounts/projects.ts';
import type { Storage } from '../../src/storage/dialect.ts';
import { launchChromium } from '../support/chromium.ts';
import { createTenant, testApp, testContext } from '../support/app.ts';
import { testDatabases } from '../support/storage.ts';

const desktopChrome = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';

describe.each(testDatabases)('feedback and searches from the tracker in Chromium on $dialect', (database) => {
  let storage: Storage;
  let app: FastifyInstance;
  let site: Server;
  let quireUrl: string;
  let sitePort: number;

  beforeAll(async () => {
    storage = await database.open();
    app = await testApp(testContext(storage));
    quireUrl = await app.listen({ port: 0, host: '127.0.0.1' });
    // A docs page whose widgets call quire() before the tracker has loaded (the documented queue stub).
    site = createServer((request, response) => {
      const project = new URL(request.url ?? '/', 'http://site').searchParams.get('project') ?? '';
      response.setHeader('content-type', 'text/html');
      response.end(`<!doctype html><title>Setup</title><h1>Setup</h1>
<script>window.quire = window.quire || function () { (window.quire.q = window.quire.q || []).push(arguments); };
quire('feedback', { source: 'contextual', helpful: false, comment: '\\u003cscript>alert(1)\\u003c/script> & more' });</script>
<script src="${quireUrl}/script.js" data-project="${project}" defer></script>`);
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

  async function until<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
    let value = await read();
    for (let attempt = 0; attempt < 50 && !done(value); attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      value = await read();
    }
    return value;
  }

  it('sends feedback and a search with its later click from a plain-HTTP site, under the page’s path', async () => {
    const siteUrl = `http://docs.test:${sitePort}`;
    const tenant = await createTenant(storage);
    await updateProject(storage.db, tenant.project.id, { trackerDomains: [new URL(siteUrl).host] });
    const browser = await launchChromium({ args: ['--host-resolver-rules=MAP docs.test 127.0.0.1'] });
    try {
      const page = await (await browser.newContext({ userAgent: desktopChrome })).newPage();
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(error.message));
      await page.goto(`${siteUrl}/guides/setup?project=${tenant.project.id}`);
      await page.waitForFunction('typeof window.quire === "function" && !window.quire.q');
      expect(await page.evaluate('isSecureContext')).toBe(false);
      const searchId = await page.evaluate(`quire('search', { query: 'Rate Limits', hits: 0 })`);
      expect(searchId).toMatch(/^[0-9a-f]{32}$/);
      await page.evaluate(`quire('search', { query: 'Rate Limits', hits: 0, searchId: ${JSON.stringify(searchId)}, clickedPath: '/api/limits' })`);
      expect(await page.evaluate(`quire('unknown', {})`)).toBeUndefined();

      const read = (operation: string) => async () =>
        (await app.inject({ method: 'GET', url: `/v1/analytics/${tenant.project.id}/${operation}`, headers: tenant.auth })).json();
      const feedback = await until(read('feedback'), (body) => body.feedback?.length === 1);
      expect(feedback.feedback[0]).toMatchObject({ path: '/guides/setup', source: 'contextual', helpful: false, comment: '<script>alert(1)</script> & more' });
      expect(feedback.feedback[0]).not.toHaveProperty('contact');
      const searches = await until(read('searches'), (body) => body.searches?.[0]?.topClickedPage !== null && body.searches?.length === 1);
      expect(searches).toMatchObject({ totalSearches: 1, searches: [{ searchQuery: 'rate limits', hits: 0, ctr: 1, topClickedPage: '/api/limits' }] });
      expect(errors).toEqual([]);
    } finally {
      await browser.close();
    }
  });

  it('refuses feedback from a host that is not a tracker domain, and oversized comments', async () => {
    const tenant = await createTenant(storage);
    await updateProject(storage.db, tenant.project.id, { trackerDomains: ['docs.example.com'] });
    const collect = (url: string, data: Record<string, unknown>) =>
      app.inject({
        method: 'POST',
        url: '/v1/collect',
        headers: { 'content-type': 'text/plain', origin: new URL(url).origin },
        payload: JSON.stringify({ project: tenant.project.id, url, visitorId: 'v1', kind: 'feedback', data }),
      });
    expect((await collect('https://evil.example.net/x', { source: 'contextual', comment: 'spam' })).statusCode).toBe(403);
    const long = await collect('https://docs.example.com/x', { source: 'contextual', comment: 'x'.repeat(2001) });
    expect(long.statusCode).toBe(400);
    expect(long.json().error).toMatch(/comment is longer than 2000/);
    expect((await collect('https://docs.example.com/x', { source: 'contextual', comment: 'ok', visitor: 'x' })).statusCode).toBe(400);
    expect((await collect('https://docs.example.com/x', { source: 'contextual', comment: 'fine' })).statusCode).toBe(204);
    const stored = await storage.db.selectFrom('analytics_feedback').select('comment').where('comment', 'in', ['spam', 'fine']).execute();
    expect(stored.map((row) => row.comment)).toEqual(['fine']);
  });

  it('limits feedback per client address more tightly than views', async () => {
    const limited = await testApp(testContext(storage, { config: { feedbackRateLimitPerAddress: 2 } }));
    try {
      const tenant = await createTenant(storage);
      await updateProject(storage.db, tenant.project.id, { trackerDomains: ['docs.example.com'] });
      const send = () =>
        limited.inject({
          method: 'POST',
          url: '/v1/collect',
          remoteAddress: '198.51.100.77',
          headers: { 'content-type': 'text/plain', origin: 'https://docs.example.com' },
          payload: JSON.stringify({
            project: tenant.project.id,
            url: 'https://docs.example.com/a',
            visitorId: 'v',
            kind: 'feedback',
            data: { source: 'thumbs_only', helpful: true },
          }),
        });
      expect((await send()).statusCode).toBe(204);
      expect((await send()).statusCode).toBe(204);
      const third = await send();
      expect(third.statusCode).toBe(429);
      expect(third.json().error).toMatch(/QUIRE_FEEDBACK_RATE_LIMIT_PER_ADDRESS/);
    } finally {
      await limited.close();
    }
  });
});
