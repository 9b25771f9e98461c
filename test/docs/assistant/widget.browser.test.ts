import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey } from '../../../src/accounts/keys.ts';
import type { Storage } from '../../../src/storage/dialect.ts';
import { createTenant, type Tenant } from '../../support/app.ts';
import { launchChromium } from '../../support/chromium.ts';
import { startOpenAiServer, type OpenAiServer } from '../../support/openai-server.ts';
import { testDatabases } from '../../support/storage.ts';
import { step } from '../../dashboard/browser.ts';
import { fillIndex, startService } from '../serving/support.ts';
import { assistantScript } from './support.ts';

/** A docs site on its own origin that embeds the widget, as a customer's site would; the key is read per request. */
function startHostSite(base: string, projectId: string, key: () => string): Promise<Server> {
  const html = () => `<!doctype html><html><head><meta name="viewport" content="width=device-width, initial-scale=1"><title>Acme docs</title>
<style>p { color: rgb(200, 0, 0); } button { background: rgb(0, 200, 0); }</style>
<script defer src="${base}/assistant.js" data-project="${projectId}" data-key="${key()}"></script></head>
<body><h1>Guides</h1><p>Host page text.</p></body></html>`;
  const server = createServer((_request, response) => response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html()));
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

/** Whether the element is the focused one inside its shadow root (the page's focus stops at the shadow host). */
const focusedInShadow = (page: Page, role: 'button' | 'textbox', name: string) =>
  page.getByRole(role, { name }).evaluate((node) => (node.getRootNode() as unknown as { activeElement: unknown }).activeElement === node);

describe('the assistant widget in Chromium', () => {
  let storage: Storage;
  let model: OpenAiServer;
  let app: FastifyInstance;
  let base: string;
  let tenant: Tenant;
  let host: Server;
  let hostOrigin: string;
  let browser: Browser;

  beforeAll(async () => {
    browser = await launchChromium();
    storage = await testDatabases[0].open();
    model = await startOpenAiServer(assistantScript);
    ({ app, base } = await startService(storage, { model: 'openai-compatible:test-model', openaiBaseUrl: model.url }));
    tenant = await createTenant(storage, { project: { siteUrl: 'https://docs.acme.test' } });
    await fillIndex(storage, tenant.project.id);
    let key = '';
    host = await startHostSite(base, tenant.project.id, () => key);
    hostOrigin = `http://127.0.0.1:${(host.address() as AddressInfo).port}`;
    ({ key } = await createKey(storage.db, tenant.orgId, { kind: 'assistant', projectIds: [tenant.project.id], allowedOrigins: [hostOrigin] }));
  });
  afterAll(async () => {
    await browser?.close();
    host?.close();
    await app?.close();
    await model?.close();
    await storage?.close();
  });

  it('serves the script as JavaScript with a long cache', async () => {
    const response = await fetch(`${base}/assistant.js`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(response.headers.get('cache-control')).toContain('max-age=86400');
    expect(await response.text()).toContain('/discovery/v2/assistant/');
  });

  it('opens with the keyboard, streams an answer with its citation from another origin, counted as web, and fits 390 px', async () => {
    const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
    await page.goto(`${hostOrigin}/guides/setup`);
    const opener = page.getByRole('button', { name: 'Ask the docs' });
    await step(page, 'widget-open', async () => {
      await opener.waitFor();
      await page.keyboard.press('Tab');
      expect(await focusedInShadow(page, 'button', 'Ask the docs')).toBe(true);
      await page.keyboard.press('Enter');
      await page.getByRole('dialog', { name: 'Ask the docs' }).waitFor();
      expect(await focusedInShadow(page, 'textbox', 'Your question')).toBe(true);
    });

    await step(page, 'widget-ask', async () => {
      // Each change to the answer's text, to see it written part by part as chunks arrive rather than once at the end.
      // (Page scripts are strings here: the tests compile without the DOM's types.)
      await page.evaluate(
        `window.answerChanges = 0; new MutationObserver((records) => { window.answerChanges += records.filter((record) => record.target.className === 'answer').length })
          .observe(document.querySelector('[data-quire-assistant]').shadowRoot.querySelector('.log'), { subtree: true, childList: true })`,
      );
      await page.keyboard.type('How do I configure webhooks?');
      await page.keyboard.press('Enter');
      const link = page.getByRole('link', { name: 'Setup' });
      await link.waitFor();
      expect(await link.getAttribute('href')).toBe('https://docs.acme.test/guides/setup#configure');
      const answer = 'Install the CLI, then configure webhooks, as the Setup page says.';
      expect(await page.getByRole('dialog').locator('.answer').textContent()).toBe(answer);
      expect(await page.evaluate('window.answerChanges')).toBeGreaterThan(1);
      expect(await page.getByRole('dialog').locator('[aria-live="polite"]').count()).toBe(1);
      expect(await page.getByRole('alert').count()).toBe(0);
    });

    await step(page, 'widget-fits', async () => {
      const box = (await page.getByRole('dialog').boundingBox())!;
      expect(box.x).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width).toBeLessThanOrEqual(390);
      expect(box.y).toBeGreaterThanOrEqual(0);
      expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
      // The host page's styles stay its own and do not reach into the widget.
      expect(await page.evaluate(`getComputedStyle(document.querySelector('p')).color`)).toBe('rgb(200, 0, 0)');
      const openerStyle = `getComputedStyle(document.querySelector('[data-quire-assistant]').shadowRoot.querySelector('.open'))`;
      expect(await page.evaluate(`${openerStyle}.backgroundColor`)).not.toBe('rgb(0, 200, 0)');
    });

    await step(page, 'widget-close', async () => {
      await page.keyboard.press('Escape');
      await page.getByRole('dialog', { includeHidden: true }).waitFor({ state: 'hidden' });
      expect(await focusedInShadow(page, 'button', 'Ask the docs')).toBe(true);
    });

    const stats = await (await fetch(`${base}/v1/analytics/${tenant.project.id}/assistant/caller-stats`, { headers: tenant.auth })).json();
    expect(stats).toEqual({ web: 1, api: 0, other: 0, total: 1 });
    const threads = await page.evaluate(() => Object.keys(sessionStorage).filter((name) => name.startsWith('quire.assistant.thread.')));
    expect(threads).toHaveLength(1);
    await page.close();
  });

  it('shows a failed answer in words', async () => {
    const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
    await page.goto(`${hostOrigin}/`);
    await page.getByRole('button', { name: 'Ask the docs' }).click();
    await page.getByRole('textbox', { name: 'Your question' }).fill('Is the model broken?');
    await page.keyboard.press('Enter');
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toContain('The assistant could not finish this answer');
    await page.close();
  });
});
