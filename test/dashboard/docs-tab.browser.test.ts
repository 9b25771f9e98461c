import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findProject } from '../../src/accounts/projects.ts';
import { createSignInLink, signInUrl } from '../../src/accounts/people/sessions.ts';
import { startService, type RunningService } from '../../src/server/service.ts';
import type { Storage } from '../../src/storage/dialect.ts';
import { createTenant, testConfig, type Tenant } from '../support/app.ts';
import { launchChromium } from '../support/chromium.ts';
import { testDatabases } from '../support/storage.ts';
import { fillIndex } from '../docs/serving/support.ts';
import { step } from './browser.ts';

describe('the Docs tab in Chromium', () => {
  let storage: Storage;
  let service: RunningService;
  let browser: Browser;
  let browserContext: BrowserContext;
  let page: Page;
  let tenant: Tenant;

  beforeAll(async () => {
    browser = await launchChromium();
    storage = await testDatabases[0].open();
    service = await startService({ config: testConfig(), api: true, worker: false, storage });
    tenant = await createTenant(storage, { project: { name: 'Handbook', siteUrl: 'https://docs.acme.test', mcpName: 'handbook' } });
    await fillIndex(storage, tenant.project.id);
    browserContext = await browser.newContext({ viewport: { width: 390, height: 844 } });
    // Granted so the copy button writes to the clipboard rather than falling back to selecting the text.
    await browserContext.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: service.url! });
    page = await browserContext.newPage();
  });
  afterAll(async () => {
    await browser?.close();
    await service?.stop();
    await storage?.close();
  });

  it('opens the Docs tab, searches, copies the MCP URL and makes the docs public', async () => {
    await step(page, 'docs-sign-in', async () => {
      await page.goto(signInUrl(service.url!, (await createSignInLink(storage.db, tenant.orgId, 30)).token));
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL(/\/dashboard\/keys$/);
    });

    await step(page, 'docs-tab', async () => {
      await page.goto(`${service.url}/dashboard/projects/${tenant.project.id}`);
      await page.getByRole('navigation', { name: 'Project Handbook' }).getByRole('link', { name: 'Docs' }).click();
      await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Docs · Handbook');
      expect(await page.locator('#docs-status').textContent()).toBe('ready');
      expect(await page.locator('table.docs-pages tbody tr td:first-child').allTextContents()).toEqual([
        'Welcome',
        'Setup',
        'Guides',
        'Webhooks',
        'Internal (hidden)',
      ]);
    });

    await step(page, 'docs-search', async () => {
      await page.getByRole('searchbox', { name: 'Search the docs' }).fill('configure');
      await page.getByRole('button', { name: 'Search', exact: true }).click();
      await page.waitForURL(/\/docs\?q=configure$/);
      const first = page.locator('#search-results li').first();
      expect(await first.getByRole('link').textContent()).toBe('Setup › Configure');
      expect(await first.getByRole('link').getAttribute('href')).toBe('https://docs.acme.test/guides/setup#configure');
      expect(await first.textContent()).toMatch(/score \d\.\d\d/);
    });

    await step(page, 'docs-copy', async () => {
      const mcp = `${service.url}/sites/${tenant.project.id}/mcp`;
      await page.getByRole('button', { name: 'Copy the MCP URL' }).click();
      await expect.poll(() => page.locator('#announcer').textContent()).toBe('Copied to the clipboard.');
      expect(await page.evaluate('navigator.clipboard.readText()')).toBe(mcp);
      expect(await page.getByRole('button', { name: 'Copy the Claude Code command' }).getAttribute('data-copy')).toBe(
        `claude mcp add --transport http handbook ${mcp}`,
      );
    });

    await step(page, 'docs-public', async () => {
      expect(await page.getByText('The docs are not public').count()).toBe(1);
      await page.getByRole('button', { name: 'Make the docs public' }).click();
      await expect.poll(() => page.getByRole('status').first().textContent()).toContain('The docs are now public.');
      expect(await page.locator('#docs-public-state').textContent()).toBe('Anyone: the docs are public.');
      expect((await findProject(storage.db, tenant.project.id))!.docs_public).toBe(1);
      // Public docs answer without a key, as the page now says.
      expect((await fetch(`${service.url}/sites/${tenant.project.id}/llms.txt`)).status).toBe(200);
    });

    await step(page, 'docs-refresh', async () => {
      await page.getByRole('button', { name: 'Refresh' }).click();
      await expect.poll(() => page.getByRole('status').first().textContent()).toContain('A build of the docs index was requested.');
    });
  });
});
