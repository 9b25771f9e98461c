import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPerson } from '../../src/accounts/people/people.ts';
import { csrfToken, openSession } from '../../src/accounts/people/sessions.ts';
import { createProject, findProject } from '../../src/accounts/projects.ts';
import type { AppContext } from '../../src/http/context.ts';
import type { Storage } from '../../src/storage/dialect.ts';
import { createTenant, testApp, testContext, type Tenant } from '../support/app.ts';
import { testDatabases } from '../support/storage.ts';
import { fillIndex, page } from '../docs/serving/support.ts';
import { form, signIn, type SignedIn } from './session.ts';

describe.each(testDatabases)('the dashboard’s Docs tab on $dialect', (database) => {
  let storage: Storage;
  let context: AppContext;
  let app: FastifyInstance;
  let tenant: Tenant;
  let owner: SignedIn;
  let member: SignedIn;
  let requested = 0;

  beforeAll(async () => {
    storage = await database.open();
    context = testContext(storage);
    app = await testApp(context);
    tenant = await createTenant(storage, { project: { siteUrl: 'https://docs.acme.test', mcpName: 'acme' } });
    await fillIndex(storage, tenant.project.id);
    owner = await signIn(app, storage, tenant.orgId);
    const person = await createPerson(storage.db, tenant.orgId, { name: 'Mia', email: 'mia@acme.test', role: 'member', passwordHash: null });
    const session = await openSession(storage.db, tenant.orgId, person.id, 1);
    member = { cookie: `quire_session=${session.token}`, csrf: csrfToken(session.token) };
    context.events.on('docs-build-requested', () => (requested += 1));
  });
  afterAll(async () => {
    await app.close();
    await storage.close();
  });

  const docsUrl = (projectId = tenant.project.id) => `/dashboard/projects/${projectId}/docs`;
  const get = (url: string, session: SignedIn | null = owner) => app.inject({ method: 'GET', url, headers: session ? { cookie: session.cookie } : {} });
  const post = (url: string, fields: Record<string, string>, session: SignedIn | null = owner, csrf = session?.csrf) =>
    app.inject({
      method: 'POST',
      url,
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...(session ? { cookie: session.cookie } : {}) },
      payload: form({ ...(csrf ? { csrf } : {}), ...fields }),
    });
  const textOf = (body: string) => body.replace(/<[^>]+>/g, '');

  it('shows the index status and the pages in navigation order, grouped, with their links', async () => {
    const response = await get(docsUrl());
    expect(response.statusCode).toBe(200);
    const body = response.body;
    expect(body).toContain('aria-current="page">Docs</a>');
    expect(body).toMatch(/id="docs-status">ready</);
    expect(body).toContain('<dt>Commit</dt><dd><code>c1</code>');
    expect(body).toMatch(/<dt>Pages<\/dt><dd>5<\/dd>/);
    const titles = [...body.matchAll(/<tr><td>([^<]+)/g)].map((match) => match[1].trim());
    expect(titles).toEqual(['Welcome', 'Setup', 'Guides', 'Webhooks', 'Internal']);
    expect(body).toContain('Internal <span class="hint">(hidden)</span>');
    expect([...body.matchAll(/<h3>([^<]+)<\/h3>/g)].map((match) => match[1])).toEqual(['Get started', 'API']);
    expect(body).toContain('href="https://docs.acme.test/guides/setup"');
    expect(body).toMatch(new RegExp(`href="http://[^"]+/sites/${tenant.project.id}/guides/setup\\.md"`));
    expect(body).toMatch(new RegExp(`href="http://[^"]+/sites/${tenant.project.id}/index\\.md"`));
    expect(body).not.toContain('Next pages');
  });

  it('offers the site surface’s addresses with copy buttons, and says a key is needed while the docs are not public', async () => {
    const body = (await get(docsUrl())).body;
    const mcp = new RegExp(`data-copy="(http://[^"]+/sites/${tenant.project.id}/mcp)"`).exec(body)?.[1];
    expect(mcp).toBeDefined();
    const base = mcp!.slice(0, -'/mcp'.length);
    for (const value of [
      `${base}/llms.txt`,
      `${base}/llms-full.txt`,
      `claude mcp add --transport http acme ${mcp}`,
      `{&quot;mcpServers&quot;: {&quot;acme&quot;: {&quot;url&quot;: &quot;${mcp}&quot;}}}`,
    ]) {
      expect(body).toContain(`data-copy="${value}"`);
    }
    expect(body).toContain('aria-label="Copy the MCP URL"');
    expect(textOf(body)).toContain('The docs are not public: an assistant or agent needs a key, sent as Authorization: Bearer');
    expect(body).toContain('<a href="/dashboard/keys">API keys page</a>');
  });

  it('searches the docs and shows each hit with its anchor link, a snippet and its score', async () => {
    const body = (await get(`${docsUrl()}?q=${encodeURIComponent('configure webhooks')}`)).body;
    const results = /<ol class="search-results" id="search-results">([\s\S]*?)<\/ol>/.exec(body)?.[1] ?? '';
    const hits = [...results.matchAll(/<li><a href="([^"]+)">([^<]+)<\/a> <span class="hint">score (\d\.\d\d)<\/span>\s*<p>([^<]*)<\/p>/g)];
    expect(hits.length).toBeGreaterThan(1);
    expect(hits[0][1]).toBe('https://docs.acme.test/guides/setup#configure');
    expect(hits[0][2]).toBe('Setup › Configure');
    expect(hits[0][4]).toContain('Then configure webhooks.');
    const scores = hits.map((hit) => Number(hit[3]));
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    expect(body).toContain('name="q" value="configure webhooks"');
    expect((await get(`${docsUrl()}?q=zebra`)).body).toContain('No sections match “zebra”.');
  });

  it('pages through a long list of pages', async () => {
    const big = await createProject(storage.db, tenant.orgId, { name: 'Big' });
    const pages = Array.from({ length: 130 }, (_, index) => page(`p/${String(index).padStart(3, '0')}.md`, `Page ${index}`, 'text', { position: index }));
    await fillIndex(storage, big.id, pages);
    const first = (await get(docsUrl(big.id))).body;
    expect(first.match(/<tr><td>Page /g)).toHaveLength(100);
    expect(first).toContain(`href="${docsUrl(big.id)}?offset=100">Next pages`);
    const second = (await get(`${docsUrl(big.id)}?offset=100`)).body;
    expect([...second.matchAll(/<tr><td>Page (\d+)/g)].map((match) => Number(match[1]))).toEqual(Array.from({ length: 30 }, (_, index) => 100 + index));
    expect(second).toContain(`href="${docsUrl(big.id)}?offset=0">Previous pages`);
  });

  it('shows why the last build failed and the pages it could not read', async () => {
    const reader = context.docs;
    context.docs = {
      ...reader,
      state: async (projectId) => ({
        ...(await reader.state(projectId)),
        status: 'failed',
        error: 'The repository could not be read: authentication failed.',
        pageErrors: [{ path: 'guides/broken.mdx', message: 'Unexpected closing tag </Card>' }],
      }),
    };
    try {
      const body = (await get(docsUrl())).body;
      expect(body).toMatch(/id="docs-status">failed</);
      expect(body).toContain('role="alert">The last build failed: The repository could not be read: authentication failed.');
      expect(body).toContain('1 page could not be read');
      expect(body).toContain('<li><code>guides/broken.mdx</code>: Unexpected closing tag &lt;/Card&gt;</li>');
    } finally {
      context.docs = reader;
    }
  });

  it('requests a build on Refresh, for owners and members', async () => {
    requested = 0;
    const refreshed = await post(`${docsUrl()}/refresh`, {});
    expect(refreshed.statusCode).toBe(303);
    expect(refreshed.headers.location).toBe(`${docsUrl()}?done=refresh`);
    expect((await post(`${docsUrl()}/refresh`, {}, member)).statusCode).toBe(303);
    expect(requested).toBe(2);
    const build = await storage.db
      .selectFrom('docs_builds')
      .select(['requested_seq', 'finished_seq'])
      .where('project_id', '=', tenant.project.id)
      .executeTakeFirst();
    expect(build && build.requested_seq > build.finished_seq).toBe(true);
    expect((await get(`${docsUrl()}?done=refresh`)).body).toContain('A build of the docs index was requested.');
  });

  it('switches the docs public and back through the project settings', async () => {
    const on = await post(`${docsUrl()}/public`, { docsPublic: 'on' }, member);
    expect(on.statusCode).toBe(303);
    expect((await findProject(storage.db, tenant.project.id))!.docs_public).toBe(1);
    const body = (await get(on.headers.location as string)).body;
    expect(body).toContain('The docs are now public.');
    expect(body).toContain('The docs are public: anyone may read these addresses.');
    expect(body).toContain('<input type="hidden" name="docsPublic" value="off">');
    expect((await post(`${docsUrl()}/public`, { docsPublic: 'off' })).statusCode).toBe(303);
    expect((await findProject(storage.db, tenant.project.id))!.docs_public).toBe(0);
    expect((await post(`${docsUrl()}/public`, { docsPublic: 'maybe' })).statusCode).toBe(400);
    expect((await findProject(storage.db, tenant.project.id))!.docs_public).toBe(0);
  });

  it('refuses posts without the form’s token or a session, and another organization’s project', async () => {
    requested = 0;
    expect((await post(`${docsUrl()}/public`, { docsPublic: 'on' }, owner, 'forged')).statusCode).toBe(403);
    expect((await post(`${docsUrl()}/refresh`, {}, member, '')).statusCode).toBe(403);
    expect((await post(`${docsUrl()}/refresh`, {}, null)).statusCode).toBe(401);
    const signedOut = await get(docsUrl(), null);
    expect([signedOut.statusCode, signedOut.headers.location]).toEqual([303, '/dashboard/sign-in']);
    const other = await createTenant(storage);
    expect((await get(docsUrl(other.project.id))).statusCode).toBe(404);
    expect((await post(`${docsUrl(other.project.id)}/refresh`, {})).statusCode).toBe(404);
    expect((await post(`${docsUrl(other.project.id)}/public`, { docsPublic: 'on' })).statusCode).toBe(404);
    expect(requested).toBe(0);
    expect((await findProject(storage.db, tenant.project.id))!.docs_public).toBe(0);
    expect((await findProject(storage.db, other.project.id))!.docs_public).toBe(0);
  });
});
