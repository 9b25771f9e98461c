import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrganization } from '../../src/accounts/organizations.ts';
import { createKey } from '../../src/accounts/keys.ts';
import { setServerCredentials } from '../../src/accounts/local-grants.ts';
import { createProject } from '../../src/accounts/projects.ts';
import { createSignInLink, signInUrl } from '../../src/accounts/people/sessions.ts';
import { startService, type RunningService } from '../../src/server/service.ts';
import type { Storage } from '../../src/storage/dialect.ts';
import { scriptedAgent, testConfig } from '../support/app.ts';
import { testDatabases } from '../support/storage.ts';
import { launchChromium } from '../support/chromium.ts';
import { startWebhookReceiver } from '../support/webhook-receiver.ts';
import { createJob } from '../../src/jobs/service.ts';
import { Webhook } from 'standardwebhooks';
import { step } from './browser.ts';

describe('dashboard in Chromium', () => {
  let storage: Storage;
  let service: RunningService;
  let browser: Browser;
  let page: Page;
  let orgId: string;
  let otherProjectId: string;
  let releaseJob: () => void = () => undefined;

  beforeAll(async () => {
    browser = await launchChromium();
    storage = await testDatabases[0].open();
    // The agent writes to the transcript, then waits until the test lets it finish, so the page is seen while the job is active.
    const agent = scriptedAgent({
      run: async (run) => {
        // Armed before the entry is recorded: the page shows it as soon as it commits (event stream).
        const released = new Promise<void>((resolve) => (releaseJob = resolve));
        await run.record('assistant', { text: `Working on: ${run.prompt}` });
        await released;
        await run.record('tool', { tool: 'write_file', input: { path: 'docs/sso.md' }, result: 'written' });
        return { prLink: 'https://github.com/acme/handbook/pull/42' };
      },
    });
    service = await startService({
      config: testConfig({ workerPollMs: 50, githubToken: 'ghp_browserTestToken', webhooksAllowPrivate: true, webhookPollMs: 50 }),
      api: true,
      worker: true,
      agent,
      storage,
    });
    orgId = (await createOrganization(storage.db, 'Acme')).id;
    // The project the test creates is on GitHub: the operator lets the organization use the server's token.
    await setServerCredentials(storage.db, orgId, true);
    otherProjectId = (await createProject(storage.db, orgId, { name: 'Website' })).id;
    page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
  });
  afterAll(async () => {
    await browser?.close();
    await service?.stop();
    await storage?.close();
  });

  const api = (path: string, key: string, init: RequestInit = {}) =>
    fetch(`${service.url}${path}`, { ...init, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...init.headers } });

  it('signs in with a one-time link, creates a project, generates a key that works, and revokes it', async () => {
    const link = await createSignInLink(storage.db, orgId, 30);
    await step(page, 'sign-in', async () => {
      await page.goto(signInUrl(service.url!, link.token));
      await page.getByRole('button', { name: 'Sign in' }).click();
      await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('API keys');
    });

    const projectId = await step(page, 'projects', async () => {
      await page.getByRole('link', { name: 'Projects' }).click();
      await page.getByLabel('Name', { exact: true }).fill('Handbook');
      await page.getByLabel('Repository').fill('https://github.com/acme/handbook');
      await page.getByLabel('Ref').fill('main');
      await page.getByLabel('Model', { exact: true }).fill('openai-compatible:test-model');
      await page.getByLabel('Allowed tracker domains').fill('docs.acme.test');
      await page.getByRole('button', { name: 'Create project' }).click();
      await expect.poll(() => page.getByRole('status').first().textContent()).toContain('Project created.');
      const id = new URL(page.url()).pathname.split('/').pop()!;
      expect(await page.locator('#tracker ~ .copyable code').textContent()).toBe(`<script defer src="${service.url}/script.js" data-project="${id}"></script>`);
      return id;
    });

    const secret = await step(page, 'generate-key', async () => {
      await page.getByRole('link', { name: 'API keys' }).click();
      expect(await page.getByRole('button', { name: 'Copy the id of Handbook' }).getAttribute('data-copy')).toBe(projectId);
      await page.getByLabel('Name', { exact: true }).fill('Browser key');
      await page.getByRole('checkbox', { name: 'Handbook' }).check();
      await page.getByRole('button', { name: 'Generate key' }).click();
      const shown = await page.locator('#new-key ~ p .copyable code').textContent();
      expect(shown).toMatch(/^quire_[0-9A-Za-z]{40}$/);
      expect(await page.getByText('it is shown only this once').count()).toBe(1);
      return shown!;
    });

    expect((await api(`/v2/agent/${projectId}/jobs`, secret)).status).toBe(200);
    expect((await api(`/v2/agent/${otherProjectId}/jobs`, secret)).status).toBe(404);

    await step(page, 'key-list', async () => {
      // A fresh visit (not a reload, which would post the form again) no longer shows the secret.
      await page.goto(`${service.url}/dashboard/keys`);
      expect(await page.locator('body').textContent()).not.toContain(secret);
      const row = page.getByRole('row', { name: /Browser key/ });
      expect(await row.textContent()).toContain(secret.slice(0, 14));
      expect(await row.textContent()).toContain('read, write');
      expect(await row.textContent()).toContain('Handbook');
    });

    await step(page, 'revoke', async () => {
      await page.getByRole('link', { name: 'Revoke Browser key' }).click();
      await page.getByRole('button', { name: 'Revoke key' }).click();
      await expect.poll(() => page.getByRole('status').first().textContent()).toContain('“Browser key” was revoked');
    });
    const refused = await api(`/v2/agent/${projectId}/jobs`, secret);
    expect(refused.status).toBe(401);
  });

  it('creates a job, follows its transcript while it runs, and sends a follow-up', async () => {
    const projectId = (await storage.db.selectFrom('projects').select('id').where('name', '=', 'Handbook').executeTakeFirstOrThrow()).id;
    await step(page, 'create-job', async () => {
      await page.goto(`${service.url}/dashboard/projects/${projectId}/jobs`);
      await page.getByLabel('Prompt').fill('Add a page about SSO');
      await page.getByRole('button', { name: 'Create job' }).click();
      await expect.poll(() => page.locator('#live').textContent()).toContain('Working on: Add a page about SSO');
      expect(await page.locator('#live .badge').textContent()).toBe('active');
    });

    await step(page, 'job-completes', async () => {
      releaseJob();
      await expect.poll(() => page.locator('#live .badge').textContent(), { timeout: 10_000 }).toBe('completed');
      expect(await page.getByRole('link', { name: 'https://github.com/acme/handbook/pull/42' }).getAttribute('href')).toBe(
        'https://github.com/acme/handbook/pull/42',
      );
      expect(await page.locator('#live').textContent()).toContain('write_file');
    });

    await step(page, 'follow-up', async () => {
      await page.getByLabel('Follow-up').fill('Also link it from the FAQ');
      await page.getByRole('button', { name: 'Send follow-up' }).click();
      await expect.poll(() => page.locator('#live').textContent()).toContain('Working on: Also link it from the FAQ');
      releaseJob();
      await expect.poll(() => page.locator('#live .badge').textContent(), { timeout: 10_000 }).toBe('completed');
    });

    await step(page, 'job-list', async () => {
      await page.getByRole('link', { name: 'Jobs' }).click();
      const row = page.getByRole('row', { name: /Add a page about SSO/ });
      expect(await row.textContent()).toContain('completed');
      expect(await row.textContent()).toContain('openai-compatible:test-model');
      expect(await row.getByRole('link', { name: /Pull request/ }).getAttribute('href')).toBe('https://github.com/acme/handbook/pull/42');
    });
  });
  it('shows the same analytics numbers as the visitors API, per day and per page, and in the CSV', async () => {
    const { key } = await createKey(storage.db, orgId, { scopes: ['read', 'ingest'] });
    const today = Math.floor(Date.now() / 86_400_000) * 86_400_000;
    const day = (offset: number) => new Date(today + offset * 86_400_000).toISOString().slice(0, 10);
    const human = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36';
    const bot = 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.1; +https://openai.com/gptbot)';
    const events = [
      ...['h1', 'h2', 'h3'].map((visitorId) => ({ timestamp: `${day(-3)}T10:00:00Z`, path: '/guides/setup', userAgent: human, visitorId })),
      ...['h1', 'h4'].map((visitorId) => ({ timestamp: `${day(-2)}T11:00:00Z`, path: '/reference/api?utm_source=chatgpt.com', userAgent: human, visitorId })),
      { timestamp: `${day(-2)}T11:30:00Z`, path: '/reference/api', userAgent: human, visitorId: 'h4', referrer: 'https://www.reddit.com/r/docs' },
      ...['a1', 'a2'].map((visitorId) => ({ timestamp: `${day(-2)}T12:00:00Z`, path: '/guides/setup.md', userAgent: bot, visitorId })),
      { timestamp: `${day(-1)}T09:00:00Z`, path: '/llms.txt', userAgent: bot, visitorId: 'a3' },
      { timestamp: `${day(-1)}T09:30:00Z`, path: '/', userAgent: human, visitorId: 'h5' },
    ];
    const ingested = await api(`/v1/analytics/${otherProjectId}/events`, key, { method: 'POST', body: JSON.stringify({ events }) });
    expect(await ingested.json()).toMatchObject({ accepted: events.length, rejected: 0 });
    type Row = { path: string; human: number; ai: number; total: number };
    const visitors = async (from: string, to: string) =>
      (await (await api(`/v1/analytics/${otherProjectId}/visitors?dateFrom=${from}&dateTo=${to}&limit=250`, key)).json()) as {
        totals: Omit<Row, 'path'>;
        visitors: Row[];
      };

    await step(page, 'analytics', async () => {
      await page.goto(`${service.url}/dashboard/projects/${otherProjectId}/analytics?from=2020-01-01&to=2020-01-07`);
      expect(await page.locator('#empty-state pre code').first().textContent()).toContain(`data-project="${otherProjectId}"`);
      await page.getByRole('link', { name: 'Last 7 days' }).click();
      await expect.poll(() => page.url()).toContain(`to=${day(0)}`);
      await page.getByLabel('First day').fill(day(-3));
      await page.getByLabel('Last day').fill(day(-1));
      await page.getByRole('button', { name: 'Show' }).click();
      await expect.poll(() => page.url()).toContain(`from=${day(-3)}`);

      const expected = await visitors(day(-3), day(0));
      expect(expected.totals).toEqual({ human: 5, ai: 3, total: 8 });
      expect(await page.locator('#total-human').textContent()).toBe(String(expected.totals.human));
      expect(await page.locator('#total-ai').textContent()).toBe(String(expected.totals.ai));
      expect(await page.locator('#total-all').textContent()).toBe(String(expected.totals.total));
      const table = await page
        .locator('#top-pages tbody tr')
        .evaluateAll((rows) => rows.map((row) => [...row.querySelectorAll('td')].map((cell) => cell.textContent)));
      expect(table).toEqual(expected.visitors.map((row) => [row.path, String(row.human), String(row.ai), String(row.total)]));

      const bars = await page
        .locator('svg circle.point')
        .evaluateAll((points) => points.map((point) => [point.getAttribute('data-day'), point.getAttribute('data-human') ?? point.getAttribute('data-ai')]));
      const perDay: [string, string][] = [];
      for (const offset of [-3, -2, -1]) {
        const { totals } = await visitors(day(offset), day(offset + 1));
        perDay.push([day(offset), String(totals.human)], [day(offset), String(totals.ai)]);
      }
      expect(bars).toEqual(perDay);
      expect(perDay.map(([, count]) => count)).toEqual(['3', '0', '2', '2', '1', '1']);

      const range = `dateFrom=${day(-3)}&dateTo=${day(0)}`;
      const views = (await (await api(`/v1/analytics/${otherProjectId}/views?${range}`, key)).json()) as { totals: Omit<Row, 'path'> };
      expect([
        await page.locator('#views-human').textContent(),
        await page.locator('#views-ai').textContent(),
        await page.locator('#views-all').textContent(),
      ]).toEqual([views.totals.human, views.totals.ai, views.totals.total].map(String));
      const agents = (await (await api(`/v1/analytics/${otherProjectId}/agents?${range}`, key)).json()) as {
        totals: { visitors: number; views: number };
        agents: { agent: string; operator: string; category: string; visitors: number; views: number }[];
      };
      expect(agents.agents).toEqual([
        { agent: 'GPTBot', operator: 'OpenAI', category: 'training', visitors: 3, views: 3, verifiedViews: 0, spoofedViews: 0, mcpViews: 0 },
      ]);
      const cells = (selector: string) =>
        page.locator(`${selector} tbody tr`).evaluateAll((rows) => rows.map((row) => [...row.querySelectorAll('td')].map((cell) => cell.textContent)));
      expect(await cells('#top-agents')).toEqual(
        agents.agents.map((row) => [row.agent, row.operator, row.category, String(row.visitors), String(row.views), '']),
      );
      expect(await cells('#ai-categories')).toEqual([['training', String(agents.totals.visitors), String(agents.totals.views)]]);
      const referrers = (await (await api(`/v1/analytics/${otherProjectId}/referrers?${range}`, key)).json()) as {
        referrers: { referrer: string; category: string; visitors: number; views: number }[];
      };
      expect(referrers.referrers.map((row) => [row.referrer, row.views])).toEqual([
        ['chatgpt.com', 2],
        ['reddit.com', 1],
      ]);
      expect(await cells('#top-referrers')).toEqual(referrers.referrers.map((row) => [row.referrer, row.category, String(row.visitors), String(row.views)]));
      expect(await page.locator('#ai-referrals').textContent()).toBe('2');
      const series = (await (await api(`/v1/analytics/${otherProjectId}/series?${range}`, key)).json()) as {
        series: { date: string; human: number; ai: number }[];
      };
      expect(
        series.series.flatMap((entry) => [
          [entry.date, String(entry.human)],
          [entry.date, String(entry.ai)],
        ]),
      ).toEqual(perDay);
      expect(await page.locator('#empty-state').count()).toBe(0);

      const csv = await page.evaluate(
        async (url) => (await fetch(url)).text(),
        `/dashboard/projects/${otherProjectId}/analytics/visitors.csv?from=${day(-3)}&to=${day(-1)}`,
      );
      expect(csv.trim().split('\n')).toEqual(['path,human,ai,total', ...expected.visitors.map((row) => `${row.path},${row.human},${row.ai},${row.total}`)]);
    });
  });
  it('adds a webhook endpoint showing its secret once, shows its delivery log, redelivers and deletes it', async () => {
    const project = await storage.db.selectFrom('projects').selectAll().where('name', '=', 'Handbook').executeTakeFirstOrThrow();
    const receiver = await startWebhookReceiver();
    try {
      const secret = await step(page, 'webhook-create', async () => {
        await page.goto(`${service.url}/dashboard/projects/${project.id}/jobs`);
        await page.getByRole('link', { name: 'Webhooks' }).click();
        expect(await page.getByText('No webhook endpoints yet.').count()).toBe(1);
        await page.getByLabel('URL').fill(`${receiver.url}/quire`);
        await page.getByRole('checkbox', { name: 'job.completed' }).uncheck();
        await page.getByLabel('Description (optional)').fill('Team chat');
        await page.getByRole('button', { name: 'Add endpoint' }).click();
        const shown = await page.locator('#new-secret ~ p .copyable code').textContent();
        expect(shown).toMatch(/^whsec_/);
        const row = page.getByRole('row', { name: /Team chat/ });
        expect(await row.textContent()).toContain('job.created');
        expect(await row.textContent()).not.toContain('job.completed');
        return shown!;
      });
      await step(page, 'webhook-refused', async () => {
        await page.getByLabel('URL').fill('ftp://example.com/hook');
        await page.getByRole('button', { name: 'Add endpoint' }).click();
        await expect.poll(() => page.getByRole('alert').textContent()).toContain('http or https');
      });

      await createJob(service.context, project, { prompt: 'Announce me' });
      const [received] = await receiver.waitFor(1);
      expect(new Webhook(secret).verify(received.body, received.headers as Record<string, string>)).toMatchObject({ type: 'job.created' });

      await step(page, 'webhook-deliveries', async () => {
        await page.goto(`${service.url}/dashboard/projects/${project.id}/webhooks`);
        expect(await page.locator('body').textContent()).not.toContain(secret);
        await page.getByRole('link', { name: `${receiver.url}/quire` }).click();
        await expect
          .poll(async () => {
            await page.reload();
            return page.locator('#deliveries ~ .scroll tbody tr').first().textContent();
          })
          .toContain('delivered');
        const row = page.locator('#deliveries ~ .scroll tbody tr').first();
        expect(await row.textContent()).toContain('job.created');
        await row.getByText('1 attempt').click();
        expect(await row.locator('li').first().textContent()).toMatch(/HTTP 200.* in \d+ ms/);
        await row.getByRole('button', { name: /Redeliver/ }).click();
        await expect.poll(() => page.getByRole('status').first().textContent()).toContain('is queued again');
      });
      const again = await receiver.waitFor(2);
      expect(again[1].headers['webhook-id']).toBe(received.headers['webhook-id']);

      await step(page, 'webhook-delete', async () => {
        await page.getByRole('button', { name: 'Delete endpoint' }).click();
        await expect.poll(() => page.getByText('No webhook endpoints yet.').count()).toBe(1);
      });
    } finally {
      releaseJob();
      await receiver.close();
    }
  });
});
