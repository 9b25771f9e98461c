import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSignInLink, signInUrl } from '../../src/accounts/people/sessions.ts';
import { startService, type RunningService } from '../../src/server/service.ts';
import type { Storage } from '../../src/storage/dialect.ts';
import { createTenant, testConfig, type Tenant } from '../support/app.ts';
import { launchChromium } from '../support/chromium.ts';
import { startOpenAiServer, type ModelScript, type OpenAiServer } from '../support/openai-server.ts';
import { testDatabases } from '../support/storage.ts';
import { assistantScript, lastQuestion } from '../docs/assistant/support.ts';
import { fillIndex } from '../docs/serving/support.ts';
import { step } from './browser.ts';

/**
 * The assistant's script, and `gradually`: a first sentence, a search, then (a second later) the
 * rest of the answer citing the setup page, so the first words are on the page while the model still works.
 */
const script: ModelScript = (request, turn) => {
  if (!lastQuestion(request).includes('gradually')) return assistantScript(request, turn);
  const replies = [
    { text: 'Let me look that up. ', toolCalls: [{ name: 'search_docs', arguments: { query: 'configure' } }] },
    {
      text: 'Configure webhooks after installing the CLI.',
      delayMs: 1500,
      toolCalls: [{ name: 'record_outcome', arguments: { resolution: 'answered', sources: ['guides/setup.mdx'] } }],
    },
  ];
  return replies[turn] ?? { text: '' };
};

/** Whether the page fits the viewport's width without scrolling sideways. */
const fitsWidth = (page: Page) => page.evaluate('document.documentElement.scrollWidth <= window.innerWidth');

describe('the Assistant tab in Chromium', () => {
  let storage: Storage;
  let service: RunningService;
  let model: OpenAiServer;
  let browser: Browser;
  let browserContext: BrowserContext;
  let page: Page;
  let tenant: Tenant;

  beforeAll(async () => {
    browser = await launchChromium();
    model = await startOpenAiServer(script);
    storage = await testDatabases[0].open();
    service = await startService({
      config: testConfig({ model: 'openai-compatible:test-model', openaiBaseUrl: model.url }),
      api: true,
      worker: false,
      storage,
    });
    tenant = await createTenant(storage, { project: { name: 'Handbook', siteUrl: 'https://docs.acme.test' } });
    await fillIndex(storage, tenant.project.id);
    browserContext = await browser.newContext({ viewport: { width: 390, height: 844 } });
    page = await browserContext.newPage();
    // The docs site the citations link to, served by the browser itself.
    await page.route('https://docs.acme.test/**', (route) => route.fulfill({ contentType: 'text/html', body: '<title>Setup</title><h1>Setup</h1>' }));
  });
  afterAll(async () => {
    await browser?.close();
    await service?.stop();
    await model?.close();
    await storage?.close();
  });

  const ask = async (question: string) => {
    await page.getByRole('textbox', { name: 'Question' }).fill(question);
    await page.getByRole('button', { name: 'Ask' }).click();
  };

  it('streams an answer with a clickable citation, lists the conversations, filters the unanswered and opens a thread', async () => {
    await step(page, 'assistant-sign-in', async () => {
      await page.goto(signInUrl(service.url!, (await createSignInLink(storage.db, tenant.orgId, 30)).token));
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL(/\/dashboard\/keys$/);
    });

    await step(page, 'assistant-tab', async () => {
      await page.goto(`${service.url}/dashboard/projects/${tenant.project.id}`);
      await page.getByRole('navigation', { name: 'Project Handbook' }).getByRole('link', { name: 'Assistant' }).click();
      await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Assistant · Handbook');
      expect(await page.getByText('No questions yet.').count()).toBe(1);
      expect(await page.locator('#widget ~ .copyable code, section[aria-labelledby="widget"] code').first().textContent()).toBe(
        `<script defer src="${service.url}/assistant.js" data-project="${tenant.project.id}" data-key="YOUR_ASSISTANT_KEY"></script>`,
      );
      expect(await fitsWidth(page)).toBe(true);
    });

    await step(page, 'assistant-stream', async () => {
      await ask('Tell me gradually how to configure webhooks');
      const text = page.locator('.playground-text');
      // The first sentence shows while the model is still writing the rest.
      await expect.poll(() => text.textContent(), { timeout: 10_000 }).toBe('Let me look that up. ');
      expect(await page.getByRole('button', { name: 'Ask' }).isDisabled()).toBe(true);
      await expect.poll(() => text.textContent(), { timeout: 10_000 }).toBe('Let me look that up. Configure webhooks after installing the CLI.');
      await expect.poll(() => page.locator('.playground-status').textContent()).toBe('Answered.');
      const citation = page.locator('.playground-sources').getByRole('link', { name: 'Setup' });
      expect(await citation.getAttribute('href')).toBe('https://docs.acme.test/guides/setup#configure');
      await citation.click();
      await page.waitForURL('https://docs.acme.test/guides/setup#configure');
      expect(await page.getByRole('heading', { name: 'Setup' }).count()).toBe(1);
      await page.goBack();
      await page.waitForURL(/\/assistant$/);
    });

    await step(page, 'assistant-follow-up', async () => {
      await ask('And what about unknown billing?');
      await expect.poll(() => page.locator('.playground-text').textContent(), { timeout: 10_000 }).toBe('The docs do not cover billing.');
      // The follow-up went to the same thread: the model saw the first question.
      expect(JSON.stringify(model.requests.at(-1)!.messages)).toContain('Tell me gradually how to configure webhooks');
    });

    await step(page, 'assistant-conversations', async () => {
      await page.reload();
      const rows = page.locator('section[aria-labelledby="conversations"] tbody tr');
      expect(await rows.count()).toBe(2);
      expect(await rows.first().textContent()).toContain('And what about unknown billing?');
      await page.getByRole('navigation', { name: 'Which conversations' }).getByRole('link', { name: 'Unanswered' }).click();
      await page.waitForURL(/filter=unanswered$/);
      expect(await rows.count()).toBe(1);
      expect(await rows.first().textContent()).toContain('unanswered');
      expect(await page.locator('section[aria-labelledby="callers"]').textContent()).toMatch(/Other \(integrations, this playground\)\s*2/);
      await rows.first().getByRole('link').click();
      await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Conversation · Handbook');
      const transcript = await page.locator('ol.transcript').textContent();
      expect(transcript).toContain('Tell me gradually how to configure webhooks');
      expect(transcript).toContain('The docs do not cover billing.');
      expect(await fitsWidth(page)).toBe(true);
    });

    await step(page, 'assistant-key', async () => {
      await page.setViewportSize({ width: 1280, height: 900 });
      await page.goto(`${service.url}/dashboard/projects/${tenant.project.id}/assistant`);
      expect(await fitsWidth(page)).toBe(true);
      await page.getByRole('button', { name: 'Generate an assistant key for this project' }).click();
      await expect.poll(() => page.getByText('the key is shown only this once').count()).toBe(1);
      const snippet = await page.getByRole('button', { name: 'Copy the assistant snippet' }).getAttribute('data-copy');
      expect(snippet).toMatch(new RegExp(`data-project="${tenant.project.id}" data-key="quire_dsc_\\w+"`));
      const key = /data-key="([^"]+)"/.exec(snippet!)![1];
      // The key in the snippet is a working assistant key of the project.
      const answer = await fetch(`${service.url}/discovery/v2/assistant/${tenant.project.id}/message`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
        body: JSON.stringify({ fp: 'reader', messages: [{ role: 'user', parts: [{ type: 'text', text: 'which plan?' }] }] }),
      });
      expect(answer.status).toBe(200);
      await answer.text();
      expect(await fitsWidth(page)).toBe(true);
    });
  });
});
