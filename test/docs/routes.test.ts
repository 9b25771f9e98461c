import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey } from '../../src/accounts/keys.ts';
import { claimBuild } from '../../src/docs/index/queue/claim.ts';
import { completeBuild } from '../../src/docs/index/queue/complete.ts';
import { runBuild } from '../../src/docs/index/build/run.ts';
import type { AppContext } from '../../src/http/context.ts';
import { backgroundLoops } from '../../src/server/background.ts';
import type { Storage } from '../../src/storage/dialect.ts';
import { createTenant, grantAccess, testApp, testContext, type Tenant } from '../support/app.ts';
import { buildContext, docsRepository } from '../support/docs-repositories.ts';
import { testDatabases } from '../support/storage.ts';

const files = {
  'docs.json': JSON.stringify({
    navigation: {
      groups: [
        { group: 'Start', pages: ['index', 'setup'] },
        { group: 'More', pages: ['faq'] },
      ],
    },
  }),
  'index.mdx': '---\ndescription: The start.\n---\n# Welcome\n\nHi.\n',
  'setup.mdx': '# Setup\n\n## Install\n\nRun it.\n',
  'faq.mdx': '# FAQ\n\nAsk.\n',
};

describe.each(testDatabases)('the docs index routes on $dialect', (database) => {
  let storage: Storage;
  let context: AppContext;
  let app: FastifyInstance;
  let tenant: Tenant;
  let other: Tenant;
  let readOnly: { authorization: string };
  let dataDir: string;
  let repositories: string;

  beforeAll(async () => {
    storage = await database.open();
    dataDir = mkdtempSync(join(tmpdir(), 'quire-docs-routes-'));
    repositories = mkdtempSync(join(tmpdir(), 'quire-docs-routes-repos-'));
    const repository = join(repositories, 'docs.git');
    docsRepository(repository, { write: files });
    context = testContext(storage, { config: { dataDir, publicUrl: 'https://quire.example.test' } });
    app = await testApp(context);
    tenant = await createTenant(storage, { project: { repository, ref: 'main' } });
    other = await createTenant(storage);
    await grantAccess(storage, context.config, tenant.orgId, { localDirectories: [repositories] });
    readOnly = { authorization: `Bearer ${(await createKey(storage.db, tenant.orgId, { scopes: ['read'] })).key}` };
  });
  afterAll(async () => {
    await app.close();
    await storage.close();
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(repositories, { recursive: true, force: true });
  });

  const get = (url: string, headers = tenant.auth) => app.inject({ method: 'GET', url, headers });

  it('reports none, then building on refresh (202, waking this process’s builder), then ready with pages in navigation order', async () => {
    const id = tenant.project.id;
    expect((await get(`/v1/docs/${id}`)).json()).toEqual({ status: 'none', commit: null, builtAt: null, pages: 0, sections: 0, error: null, pageErrors: [] });
    let woken = 0;
    context.events.on('docs-build-requested', () => woken++);
    const refreshed = await app.inject({ method: 'POST', url: `/v1/docs/${id}/refresh`, headers: tenant.auth });
    expect(refreshed.statusCode).toBe(202);
    expect(refreshed.json()).toMatchObject({ status: 'building', commit: null });
    expect(woken).toBe(1);

    const claimed = (await claimBuild(storage, 'wrk_test', { leaseMs: 60_000, maxAttempts: 3 }))!;
    const outcome = await runBuild(buildContext(storage, context.config), id, new AbortController().signal);
    if (!outcome.ok || 'interrupted' in outcome) throw new Error('the build failed');
    await completeBuild(storage, claimed, 'wrk_test', outcome.result);
    const state = (await get(`/v1/docs/${id}`, readOnly)).json();
    expect(state).toMatchObject({ status: 'ready', commit: outcome.result.commit, pages: 3, sections: 3, error: null, pageErrors: [] });
    expect(new Date(state.builtAt as string).getTime()).toBeGreaterThan(Date.now() - 60_000);

    const first = (await get(`/v1/docs/${id}/pages?limit=2`, readOnly)).json();
    expect(first).toEqual({
      pages: [
        { path: 'index.mdx', route: '/', url: `https://quire.example.test/sites/${id}/`, title: 'Welcome', description: 'The start.', group: 'Start' },
        { path: 'setup.mdx', route: '/setup', url: `https://quire.example.test/sites/${id}/setup`, title: 'Setup', description: null, group: 'Start' },
      ],
      hasMore: true,
    });
    const rest = (await get(`/v1/docs/${id}/pages?limit=2&offset=2`)).json();
    expect(rest).toMatchObject({ pages: [{ path: 'faq.mdx', group: 'More' }], hasMore: false });
    const saved = await app.inject({ method: 'PATCH', url: `/v1/projects/${id}`, headers: tenant.auth, payload: { siteUrl: 'https://docs.acme.test/' } });
    expect(saved.statusCode).toBe(200);
    expect((await get(`/v1/docs/${id}/pages?limit=1&offset=1`)).json().pages[0].url).toBe('https://docs.acme.test/setup');
  });

  it('needs the write scope to refresh, hides other organizations’ projects, and checks limit and offset', async () => {
    const id = tenant.project.id;
    expect((await app.inject({ method: 'POST', url: `/v1/docs/${id}/refresh`, headers: readOnly })).statusCode).toBe(403);
    expect((await get(`/v1/docs/${id}`, { authorization: '' })).statusCode).toBe(401);
    for (const url of [`/v1/docs/${id}`, `/v1/docs/${id}/pages`]) expect((await get(url, other.auth)).statusCode).toBe(404);
    expect((await app.inject({ method: 'POST', url: `/v1/docs/${id}/refresh`, headers: other.auth })).statusCode).toBe(404);
    for (const query of ['limit=0', 'limit=251', 'limit=abc', 'offset=-1', 'other=1']) {
      const answer = await get(`/v1/docs/${id}/pages?${query}`);
      expect([query, answer.statusCode, answer.json().code]).toEqual([query, 400, 'invalid_request']);
    }
  });

  it('queues a build when a project is saved with another repository or ref', async () => {
    const requests = backgroundLoops.find((loop) => loop.name === 'docs build requests')!;
    const started = await requests.start(context, { worker: null, deliveries: null });
    try {
      const id = tenant.project.id;
      expect((await get(`/v1/docs/${id}`)).json().status).toBe('ready');
      const saved = await app.inject({ method: 'PATCH', url: `/v1/projects/${id}`, headers: tenant.auth, payload: { ref: 'release' } });
      expect(saved.statusCode).toBe(200);
      await expect.poll(async () => (await get(`/v1/docs/${id}`)).json().status).toBe('building');
    } finally {
      await started.stop();
    }
  });
});
