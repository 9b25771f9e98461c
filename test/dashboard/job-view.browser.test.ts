import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrganization } from '../../src/accounts/organizations.ts';
import { setServerCredentials } from '../../src/accounts/local-grants.ts';
import { createProject } from '../../src/accounts/projects.ts';
import { createJob } from '../../src/jobs/service.ts';
import { jobView } from '../../src/jobs/view.ts';
import { createSignInLink, signInUrl } from '../../src/accounts/people/sessions.ts';
import { startService, type RunningService } from '../../src/server/service.ts';
import type { Storage } from '../../src/storage/dialect.ts';
import type { ProjectRow } from '../../src/storage/tables/accounts.ts';
import { scriptedAgent, testConfig } from '../support/app.ts';
import { testDatabases } from '../support/storage.ts';
import { launchChromium } from '../support/chromium.ts';
import { step } from './browser.ts';

const hostileDiff = [
  'diff --git a/docs/sso.md b/docs/sso.md',
  '--- a/docs/sso.md',
  '+++ b/docs/sso.md',
  '@@ -1,2 +1,3 @@',
  ' # SSO',
  '-Old line',
  '+<img src=x onerror="window.injected=1"> New line',
  `+${'averyveryverylongwordwithoutanybreak'.repeat(12)}`,
].join('\n');

const longProblem = {
  file: `docs/${'averyveryverylongfoldername'.repeat(6)}/sso.md`,
  line: 3,
  message: '<img src=x onerror="window.injected=3"> links to `upgrade.md`, which does not exist',
};

describe('dashboard job view in Chromium, 390 px wide', () => {
  let storage: Storage;
  let service: RunningService;
  let browser: Browser;
  let page: Page;
  let project: ProjectRow;
  let proceed: () => void = () => undefined;

  beforeAll(async () => {
    browser = await launchChromium();
    storage = await testDatabases[0].open();
    // The first job pushes a change and waits for the test; "cancel me" waits until it is cancelled.
    const agent = scriptedAgent({
      run: async (run) => {
        // Armed before anything is recorded: the page may show the entries before this run reaches the wait.
        const proceedWhenAsked = new Promise<void>((resolve) => (proceed = resolve));
        await run.record('assistant', { text: `I will add the page.\n\nFirst I read the <b>index</b>.` });
        await run.record('tool', { tool: 'read_file', input: { path: 'docs/index.md' }, result: '# Index\n<script>window.injected=2</script>' });
        if (run.prompt === 'cancel me') {
          await new Promise((resolve) => run.signal.addEventListener('abort', resolve));
          throw run.signal.reason;
        }
        await proceedWhenAsked;
        await run.record('event', {
          type: 'change-pushed',
          files: [
            { path: 'docs/sso.md', added: 2, removed: 1 },
            { path: 'assets/logo.png', added: null, removed: null },
          ],
          diff: hostileDiff,
          truncated: false,
        });
        await run.record('event', {
          type: 'checks',
          round: 0,
          passed: false,
          checked: ['Markdown and MDX compile, front matter is valid YAML (1 page)'],
          problems: [longProblem, { file: 'mkdocs.yml', message: 'the navigation lists `sso.md`, but no such page exists' }],
          skipped: [],
        });
        await run.record('assistant', { text: 'Done.' });
        // More problems than a job keeps, the first with a message longer than it keeps.
        const problems = [
          { ...longProblem, message: `${longProblem.message} ${'x'.repeat(2_000)}` },
          ...Array.from({ length: 59 }, (_, index) => ({ file: `docs/page-${index}.md`, line: null, message: 'is a new page that no navigation lists' })),
        ];
        return { prLink: 'https://github.com/acme/handbook/pull/42', pullRequest: { draft: true, problems } };
      },
    });
    service = await startService({
      config: testConfig({ workerPollMs: 50, eventsPollMs: 50, githubToken: 'ghp_browserTestToken' }),
      api: true,
      worker: true,
      agent,
      storage,
    });
    const orgId = (await createOrganization(storage.db, 'Acme')).id;
    await setServerCredentials(storage.db, orgId, true);
    project = await createProject(storage.db, orgId, {
      name: 'Handbook',
      repository: 'https://github.com/acme/handbook',
      ref: 'main',
      model: 'openai-compatible:test-model',
    });
    page = await (await browser.newContext({ viewport: { width: 390, height: 844 } })).newPage();
    const link = await createSignInLink(storage.db, orgId, 30);
    await page.goto(signInUrl(service.url!, link.token));
    await page.getByRole('button', { name: 'Sign in' }).click();
  });
  afterAll(async () => {
    await browser?.close();
    await service?.stop();
    await storage?.close();
  });

  // Evaluated in the page, where `document` exists (written as text: the tests compile without the DOM library).
  const overflow = () => page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth') as Promise<number>;

  it('shows the transcript readably and the pushed change as it arrives, escaped, without overflowing', async () => {
    const { job } = await createJob(service.context, project, { prompt: 'Add a page about SSO' });
    await step(page, 'job-view-active', async () => {
      await page.goto(`${service.url}/dashboard/projects/${project.id}/jobs/${job.id}`);
      await expect.poll(() => page.locator('#live').textContent()).toContain('First I read the <b>index</b>.');
      expect(await page.locator('.transcript li.agent p').count()).toBeGreaterThanOrEqual(2);
      const tool = page.locator('.transcript li.tool summary');
      expect(await tool.textContent()).toContain('read_file');
      expect(await page.getByText('window.injected=2').isVisible()).toBe(false);
      await tool.click();
      expect(await page.getByText('window.injected=2').isVisible()).toBe(true);
      expect(await page.getByRole('button', { name: 'Cancel job' }).isVisible()).toBe(true);
      expect(await overflow()).toBeLessThanOrEqual(0);
    });

    await step(page, 'job-view-change', async () => {
      proceed();
      // Live: the page is not reloaded; the event stream brings the change and the end of the job.
      await expect.poll(() => page.locator('#live [role="status"] .badge').textContent(), { timeout: 10_000 }).toBe('completed');
      expect(await page.locator('ul.files').textContent()).toMatch(/docs\/sso\.md\s*\+2\s*−1/);
      expect(await page.locator('ul.files').textContent()).toContain('binary');
      expect(await page.locator('pre.diff .add').first().textContent()).toContain('<img src=x onerror="window.injected=1"> New line');
      expect(await page.locator('pre.diff img').count()).toBe(0);
      expect(await page.evaluate('window.injected')).toBeUndefined();
      expect(await page.locator('.transcript li.event').allTextContents()).toEqual(
        expect.arrayContaining([expect.stringContaining('pushed a change to 2 files')]),
      );
      expect(await page.getByRole('button', { name: 'Cancel job' }).count()).toBe(0);
      expect(await overflow()).toBeLessThanOrEqual(0);
    });

    await step(page, 'job-view-checks', async () => {
      // The checks event reads as a sentence and a list of page:line and message, not as JSON arrays.
      const checks = page.locator('.transcript li.checks');
      expect(await checks.textContent()).toContain('checked the change: 2 problems found');
      expect(await checks.locator('ul.problems li').allTextContents()).toEqual([
        `${longProblem.file}:3 ${longProblem.message}`,
        'mkdocs.yml the navigation lists `sso.md`, but no such page exists',
      ]);
      expect(await checks.textContent()).toContain('Checked: Markdown and MDX compile');
      expect(await checks.textContent()).not.toContain('[{');
      // The job's pull request is a draft with the problem that remains.
      expect(await page.locator('#live dd .badge.draft').textContent()).toBe('draft');
      expect(await page.locator('#live dd span.problems').textContent()).toBe('60 problems remain');
      // The job keeps the first 50, each message cut at 1,000 characters, and counts the rest.
      expect(await page.locator('#live dd ul.problems li').count()).toBe(51);
      expect(await page.locator('#live dd ul.problems li').last().textContent()).toBe('… and 10 more');
      const row = await storage.db
        .selectFrom('jobs')
        .selectAll()
        .where('project_id', '=', project.id)
        .where('status', '=', 'completed')
        .executeTakeFirstOrThrow();
      const view = jobView(row);
      expect(view).toMatchObject({ draft: true, prLink: 'https://github.com/acme/handbook/pull/42' });
      expect(view.problems).toHaveLength(50);
      expect(view.problems[0]).toMatchObject({ file: longProblem.file, line: 3 });
      expect(view.problems[0].message).toHaveLength(1_000);
      expect(view.problems[0].message.endsWith('…')).toBe(true);
      expect(view.problems[1]).toEqual({ file: 'docs/page-0.md', line: null, message: 'is a new page that no navigation lists' });
      expect(await page.evaluate('window.injected')).toBeUndefined();
      for (const width of [390, 1280]) {
        await page.setViewportSize({ width, height: 844 });
        expect(await overflow()).toBeLessThanOrEqual(0);
      }
      await page.setViewportSize({ width: 390, height: 844 });
    });
  });

  it('cancels an active job with its button', async () => {
    const { job } = await createJob(service.context, project, { prompt: 'cancel me' });
    await step(page, 'job-view-cancel', async () => {
      await page.goto(`${service.url}/dashboard/projects/${project.id}/jobs/${job.id}`);
      await expect.poll(() => page.locator('#live').textContent()).toContain('read_file');
      await page.getByRole('button', { name: 'Cancel job' }).click();
      await expect.poll(() => page.locator('#live [role="status"] .badge').textContent(), { timeout: 10_000 }).toBe('failed');
      expect(await page.locator('#live').textContent()).toContain('The job was cancelled by a dashboard user');
      expect(await overflow()).toBeLessThanOrEqual(0);
    });
    const row = await storage.db.selectFrom('jobs').selectAll().where('id', '=', job.id).executeTakeFirstOrThrow();
    expect(row.status).toBe('failed');
    await expect.poll(() => service.worker!.activeRuns).toBe(0);
  });
});
