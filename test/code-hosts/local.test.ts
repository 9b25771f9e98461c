import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codeHostFor } from '../../src/code-hosts/select.ts';
import type { Storage } from '../../src/storage/dialect.ts';
import { openWorkspace } from '../../src/workspace/workspace.ts';
import { createTenant, grantAccess, testApp, testContext, type Tenant } from '../support/app.ts';
import { createBareRepository, git } from '../support/git-repositories.ts';
import { testDatabases } from '../support/storage.ts';
import { signIn } from '../dashboard/session.ts';
import { launchChromium } from '../support/chromium.ts';

const [database] = testDatabases;
let storage: Storage;
let app: FastifyInstance;
let base: string;
let sandbox: string;
let repository: string;
let tenant: Tenant;
/** Cookie headers of dashboard sessions: the job's organization, and another one. */
let owner: string;
let stranger: string;

beforeAll(async () => {
  sandbox = mkdtempSync(join(tmpdir(), 'quire-local-host-'));
  repository = createBareRepository(join(sandbox, 'docs.git'));
  storage = await database.open();
  tenant = await createTenant(storage, { project: { repository: `file://${repository}`, ref: null } });
  const context = testContext(storage);
  // As the operator does for a local repository; the change page checks the grant at every view.
  await grantAccess(storage, context.config, tenant.orgId, { localDirectories: [repository] });
  app = await testApp(context);
  await app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  owner = (await signIn(app, storage, tenant.orgId)).cookie;
  stranger = (await signIn(app, storage, (await createTenant(storage)).orgId)).cookie;
});
afterAll(async () => {
  await app.close();
  await storage.close();
  rmSync(sandbox, { recursive: true, force: true });
});

const open = (url: string, cookie?: string) => fetch(url, { headers: cookie ? { cookie } : {}, redirect: 'manual' });

async function createJob(target: Tenant): Promise<{ id: string }> {
  const response = await app.inject({ method: 'POST', url: `/v2/agent/${target.project.id}/job`, headers: target.auth, payload: { prompt: 'Add a page' } });
  expect(response.statusCode).toBe(201);
  return response.json();
}

describe('local repositories', () => {
  it('pushes the job branch there and shows its diff on a dashboard page of the job’s organization', async () => {
    const job = await createJob(tenant);
    const branch = `quire/${job.id}`;
    const host = codeHostFor(`file://${repository}`, testContext(storage, { config: { publicUrl: base } }).config);
    expect(host.name).toBe('local');
    expect(await host.gitCredentials(repository)).toBeUndefined();

    const workspace = await openWorkspace({ repository: `file://${repository}`, ref: null, branch, jobId: job.id, root: join(sandbox, 'data') });
    await workspace.files.write('docs/hostile.md', '# Hello <script>alert("x")</script>\n');
    await workspace.commitAll('Add <b>page</b>', { name: 'Quire', email: 'quire@example.test' });
    await workspace.push();
    await workspace.dispose();

    const pullRequest = await host.openOrUpdatePullRequest({ repository: `file://${repository}`, branch, base: 'main', title: 'Add a page', body: '' });
    expect(pullRequest.url).toBe(`${base}/dashboard/changes/${job.id}`);

    const response = await open(pullRequest.url, owner);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    expect(response.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(response.headers.get('x-frame-options')).toBe('DENY');
    const page = await response.text();
    expect(page).toContain('docs/hostile.md');
    expect(page).toContain('# Hello &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;');
    expect(page).toContain('Add &lt;b&gt;page&lt;/b&gt;');
    expect(page).not.toContain('<script>');
    expect(page).not.toContain('mkdocs.yml');

    // Without a session: the sign-in page, not the diff.
    const anonymous = await open(pullRequest.url);
    expect(anonymous.status).toBe(303);
    expect(anonymous.headers.get('location')).toBe('/dashboard/sign-in');
    expect(await anonymous.text()).not.toContain('hostile.md');
    // Another organization's session: exactly what a job that does not exist gets.
    const foreign = await open(pullRequest.url, stranger);
    const unknown = await open(`${base}/dashboard/changes/job_unknown`, stranger);
    expect(foreign.status).toBe(404);
    expect(unknown.status).toBe(404);
    expect((await foreign.text()).replaceAll(job.id, 'ID')).toBe((await unknown.text()).replaceAll('job_unknown', 'ID'));
    // The old address of the page leads to it, for every id alike.
    for (const id of [job.id, 'job_unknown']) {
      const old = await open(`${base}/changes/${id}`);
      expect(old.status).toBe(301);
      expect(old.headers.get('location')).toBe(`/dashboard/changes/${id}`);
    }
  });

  it('shows nothing for unknown jobs, unpushed branches or projects that are not local', async () => {
    expect((await open(`${base}/dashboard/changes/job_unknown`, owner)).status).toBe(404);
    const unpushed = await createJob(tenant);
    expect((await open(`${base}/dashboard/changes/${unpushed.id}`, owner)).status).toBe(404);

    // A branch named after another organization's job, planted in this project's repository.
    const remote = await createTenant(storage);
    const elsewhere = await createJob(remote);
    git(repository, 'branch', `quire/${elsewhere.id}`, 'main');
    expect((await open(`${base}/dashboard/changes/${elsewhere.id}`, owner)).status).toBe(404);
  });

  it('renders the description’s Markdown as HTML with everything hostile inert, at 390 and 1,280 px', async () => {
    const job = await createJob(tenant);
    const branch = `quire/${job.id}`;
    const workspace = await openWorkspace({ repository: `file://${repository}`, ref: null, branch, jobId: job.id, root: join(sandbox, 'data') });
    await workspace.files.write('docs/faq.md', '# FAQ\n');
    await workspace.commitAll('Add the FAQ', { name: 'Quire', email: 'quire@example.test' });
    await workspace.push();
    await workspace.dispose();
    const body = [
      '## Summary',
      '',
      '- adds **docs/faq.md**, see `mkdocs.yml`',
      '- [the guide](https://docs.acme.test/guide)',
      '',
      '<script>window.injected = 1</script>',
      '',
      '[click me](javascript:window.injected=2) [or me](JaVaScRiPt:window.injected=3) <javascript:window.injected=4>',
      '',
      '<img src=x onerror="window.injected=5"> <a href="javascript:window.injected=6">raw link</a>',
      '',
      `![tracking pixel](${base}/pixel.png) [data](data:text/html,<script>window.injected=7</script>)`,
      '',
      '```html',
      '</pre><script>window.injected = 8</script>',
      '```',
      '',
      `${'averyveryverylongwordwithoutanybreak'.repeat(8)}`,
    ].join('\n');
    const host = codeHostFor(`file://${repository}`, testContext(storage, { config: { publicUrl: base } }).config);
    const pullRequest = await host.openOrUpdatePullRequest({
      repository: `file://${repository}`,
      branch,
      base: 'main',
      title: 'Add an FAQ',
      body,
      draft: true,
    });

    const page = await (await open(pullRequest.url, owner)).text();
    const description = page.slice(page.indexOf('<div class="description">'), page.indexOf('<h2>Commits</h2>'));
    expect(description).toContain('<h2>Summary</h2>');
    expect(description).toContain('<li>adds <strong>docs/faq.md</strong>, see <code>mkdocs.yml</code></li>');
    expect(description).toContain('<a href="https://docs.acme.test/guide">the guide</a>');
    // Raw HTML is text, links to other schemes have no address, and the image is a link the page does not load.
    expect(description).not.toMatch(/<script|<img|href="\s*(javascript|data):|<[a-z][^>]*\son[a-z]+=/i);
    expect(description).toContain('<a href="">click me</a>');
    expect(description).toContain(`!<a href="${base}/pixel.png">tracking pixel</a>`);
    expect(description).toContain('&lt;script&gt;window.injected = 1&lt;/script&gt;');

    const browser = await launchChromium();
    try {
      for (const width of [390, 1280]) {
        const context = await browser.newContext({ viewport: { width, height: 844 } });
        const [name, value] = owner.split('=');
        await context.addCookies([{ name, value, url: base }]);
        const tab = await context.newPage();
        const requested: string[] = [];
        tab.on('request', (request) => requested.push(request.url()));
        await tab.goto(pullRequest.url);
        expect(await tab.getByRole('heading', { level: 2, name: 'Summary' }).count()).toBe(1);
        const protocols = await tab.evaluate("[...document.querySelectorAll('.description a')].map((link) => link.protocol)");
        expect(new Set(protocols as string[])).toEqual(new Set(['http:', 'https:']));
        expect(await tab.evaluate('window.injected')).toBeUndefined();
        expect(await tab.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(width);
        expect(requested.filter((url) => url.includes('pixel'))).toEqual([]);
        await context.close();
      }
    } finally {
      await browser.close();
    }
  }, 60_000);

  it('refuses to show a branch that is not a job branch', async () => {
    const host = codeHostFor(repository, testContext(storage).config);
    await expect(host.openOrUpdatePullRequest({ repository, branch: 'main', base: 'main', title: 'T', body: '' })).rejects.toThrow(/only of job branches/);
  });
});
