import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout } from 'node:timers/promises';
import type { Browser, BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey } from '../../src/accounts/keys.ts';
import { createProject } from '../../src/accounts/projects.ts';
import { createSignInLink, signInUrl } from '../../src/accounts/people/sessions.ts';
import { jobBranch } from '../../src/lib/job-branch.ts';
import { startService, type RunningService } from '../../src/server/service.ts';
import type { Storage } from '../../src/storage/dialect.ts';
import { createTenant, grantAccess, scriptedAgent, testConfig } from '../support/app.ts';
import { launchChromium } from '../support/chromium.ts';
import { commitToBareRepository, createBareRepository, git } from '../support/git-repositories.ts';
import { testDatabases } from '../support/storage.ts';
import { fillIndex, page as docsPage, sitePages } from '../docs/serving/support.ts';
import { dashboardPages, signedOutPages, type SeededIds } from './page-list.ts';

/** Long words a page must wrap or scroll inside its own boxes, never by widening the page. */
const longPath = `docs/${'very-long-directory-name/'.repeat(6)}configuration-reference.mdx`;
const longOutput = JSON.stringify({ files: Array.from({ length: 12 }, (_, index) => `${longPath}#section-${index}`) });
const widths = [
  { name: 'phone', width: 390, height: 844 },
  { name: 'desktop', width: 1280, height: 900 },
];
// `npm run screenshots` sets this to keep a picture of every page at both widths under test-results/.
const screenshots = process.env.QUIRE_SCREENSHOTS === '1';

describe('every dashboard page fits a phone screen', () => {
  let storage: Storage;
  let service: RunningService;
  let browser: Browser;
  let sandbox: string;
  let ids: SeededIds;

  beforeAll(async () => {
    sandbox = mkdtempSync(join(tmpdir(), 'quire-widths-'));
    storage = await testDatabases[0].open();
    const agent = scriptedAgent({
      run: async (run) => {
        await run.record('assistant', { text: `Working on: ${run.prompt} ${longPath}` });
        await run.record('tool', { tool: 'read_file', input: { path: longPath }, result: longOutput });
        if (run.prompt.includes('fail')) throw new Error(`The model could not read ${longPath}`);
        return { prLink: run.prompt.includes('local') ? null : 'https://github.com/acme-corporation-with-a-long-name/handbook/pull/4242' };
      },
    });
    const config = testConfig({ workerPollMs: 50, dataDir: join(sandbox, 'data') });
    service = await startService({ config, api: true, worker: true, agent, storage });
    const tenant = await createTenant(storage, { project: { name: 'Handbook for the whole engineering organization', model: 'openai-compatible:test-model' } });
    const repository = createBareRepository(join(sandbox, 'docs.git'));
    const local = await createProject(storage.db, tenant.orgId, { name: 'Local docs', repository: `file://${repository}`, model: 'openai-compatible:m' });
    await grantAccess(storage, config, tenant.orgId, { localDirectories: [repository] });
    const key = await createKey(storage.db, tenant.orgId, {
      name: 'Continuous integration deploy key for the documentation site',
      scopes: ['read', 'write', 'ingest'],
      projectIds: [tenant.project.id, local.id],
      allowedIps: ['203.0.113.0/24', '2001:db8:1234:5678::/64'],
      expiresAt: new Date(Date.now() + 30 * 86_400_000),
    });
    const create = async (projectId: string, prompt: string) => {
      const response = await fetch(`${service.url}/v2/agent/${projectId}/job`, {
        method: 'POST',
        headers: { ...tenant.auth, 'content-type': 'application/json' },
        body: JSON.stringify({ prompt }),
      });
      return ((await response.json()) as { id: string }).id;
    };
    const jobId = await create(tenant.project.id, `Document every setting of ${longPath} with examples`);
    const failedJobId = await create(tenant.project.id, 'This one will fail');
    const localJobId = await create(local.id, 'A local change');
    git(repository, 'branch', jobBranch(localJobId), 'main');
    commitToBareRepository(repository, jobBranch(localJobId), { [longPath]: `# Configuration\n\n${'A long line without breaks '.repeat(20)}\n` });
    // The jobs run on the service's worker; wait until none is active (vitest fails the hook after its timeout).
    while ((await storage.db.selectFrom('jobs').select('id').where('status', '=', 'active').execute()).length > 0) await setTimeout(50);
    await fetch(`${service.url}/v1/analytics/${tenant.project.id}/events`, {
      method: 'POST',
      headers: { ...tenant.auth, 'content-type': 'application/json' },
      body: JSON.stringify({ events: [{ path: `/${longPath}`, userAgent: 'Mozilla/5.0 (X11; Linux x86_64) Chrome/126.0 Safari/537.36', visitorId: 'v1' }] }),
    });
    const longRoute = `/${longPath.replace(/\.mdx$/, '')}`;
    await fillIndex(storage, tenant.project.id, [
      ...sitePages,
      docsPage(longPath, `Configuration reference ${longPath}`, `Every configuration setting. ${longOutput}`, {
        route: longRoute,
        group: longPath,
        position: 9,
      }),
    ]);
    ids = { projectId: tenant.project.id, localProjectId: local.id, jobId, failedJobId, localJobId, keyId: key.row.id };
    browser = await launchChromium();
    orgId = tenant.orgId;
  });
  let orgId: string;
  afterAll(async () => {
    await browser?.close();
    await service?.stop();
    await storage?.close();
    rmSync(sandbox, { recursive: true, force: true });
  });

  async function signedInContext(width: number, height: number): Promise<BrowserContext> {
    const context = await browser.newContext({ viewport: { width, height } });
    const page = await context.newPage();
    await page.goto(signInUrl(service.url!, (await createSignInLink(storage.db, orgId, 30)).token));
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(/\/dashboard\/keys$/);
    await page.close();
    return context;
  }

  for (const { name: widthName, width, height } of widths) {
    it(`has no horizontal overflow at ${width} px (${widthName})`, async () => {
      const context = await signedInContext(width, height);
      const page = await context.newPage();
      const overflowing: string[] = [];
      for (const entry of [...dashboardPages, ...signedOutPages]) {
        const response = await page.goto(`${service.url}${entry.path(ids)}`);
        expect(response?.status(), entry.name).toBeLessThan(entry.name === 'not-found' ? 500 : 400);
        const scrollWidth = (await page.evaluate('document.documentElement.scrollWidth')) as number;
        const innerWidth = (await page.evaluate('window.innerWidth')) as number;
        if (scrollWidth > innerWidth) {
          // Name the widest element, so a failure says where to look.
          const widest = await page.evaluate(
            `[...document.querySelectorAll('body *')].filter((element) => element.getBoundingClientRect().right > window.innerWidth && !element.parentElement.closest('pre, .scroll, figure')).map((element) => element.tagName.toLowerCase() + (element.className ? '.' + element.className : '')).slice(-3).join(', ')`,
          );
          overflowing.push(`${entry.name}: ${scrollWidth} px (${String(widest)})`);
        }
        if (screenshots) {
          mkdirSync('test-results/screenshots', { recursive: true });
          await page.screenshot({ path: `test-results/screenshots/${entry.name}-${widthName}.png`, fullPage: true });
        }
      }
      expect(overflowing).toEqual([]);
      await context.close();
    });
  }
});
