import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, findProject } from '../../src/accounts/projects.ts';
import type { Storage } from '../../src/storage/dialect.ts';
import { createTenant, testApp, testContext, type Tenant } from '../support/app.ts';
import { testDatabases } from '../support/storage.ts';
import { form, signIn, type SignedIn } from './session.ts';

describe.each(testDatabases)('the dashboard’s docs settings and assistant keys on $dialect', (database) => {
  let storage: Storage;
  let app: FastifyInstance;
  let tenant: Tenant;
  let session: SignedIn;

  beforeAll(async () => {
    storage = await database.open();
    app = await testApp(testContext(storage));
    tenant = await createTenant(storage);
    session = await signIn(app, storage, tenant.orgId);
  });
  afterAll(async () => {
    await app.close();
    await storage.close();
  });

  const post = (url: string, fields: Record<string, string>) =>
    app.inject({
      method: 'POST',
      url,
      headers: { cookie: session.cookie, 'content-type': 'application/x-www-form-urlencoded' },
      payload: form({ csrf: session.csrf, ...fields }),
    });
  const settings = (fields: Record<string, string>) => post(`/dashboard/projects/${tenant.project.id}`, { name: 'Docs', ...fields });

  it('shows the docs settings and saves them', async () => {
    const page = await app.inject({ method: 'GET', url: `/dashboard/projects/${tenant.project.id}`, headers: { cookie: session.cookie } });
    expect(page.body).toMatch(/id="project-mcpName" name="mcpName" value="docs"/);
    expect(page.body).toMatch(/<option value="off" selected>Only with an assistant or API key/);
    const saved = await settings({ siteUrl: 'https://docs.acme.com', docsPublic: 'on', mcpName: 'acme' });
    expect(saved.statusCode).toBe(303);
    expect(await findProject(storage.db, tenant.project.id)).toMatchObject({ site_url: 'https://docs.acme.com', docs_public: 1, mcp_name: 'acme' });
    // An empty MCP name keeps the current one.
    expect((await settings({ siteUrl: '', mcpName: '' })).statusCode).toBe(303);
    expect(await findProject(storage.db, tenant.project.id)).toMatchObject({ site_url: null, docs_public: 1, mcp_name: 'acme' });
  });

  it('shows a repository saved with a token (before such addresses were refused) without it, on the settings page and the list', async () => {
    await storage.db
      .updateTable('projects')
      .set({ repository: 'https://ci:ghp_storedToken123@github.com/acme/docs' })
      .where('id', '=', tenant.project.id)
      .execute();
    const page = await app.inject({ method: 'GET', url: `/dashboard/projects/${tenant.project.id}`, headers: { cookie: session.cookie } });
    expect(page.body).toContain('value="https://github.com/acme/docs"');
    const list = await app.inject({ method: 'GET', url: '/dashboard/projects', headers: { cookie: session.cookie } });
    for (const body of [page.body, list.body]) expect(body).not.toContain('ghp_storedToken123');
    await storage.db.updateTable('projects').set({ repository: null }).where('id', '=', tenant.project.id).execute();
  });

  it('shows the assistant model, saves it and clears it when emptied', async () => {
    expect((await settings({ assistantModel: 'openai:gpt-4.1-mini' })).statusCode).toBe(303);
    expect((await findProject(storage.db, tenant.project.id))!.assistant_model).toBe('openai:gpt-4.1-mini');
    const page = await app.inject({ method: 'GET', url: `/dashboard/projects/${tenant.project.id}`, headers: { cookie: session.cookie } });
    expect(page.body).toMatch(/id="project-assistantModel" name="assistantModel" value="openai:gpt-4.1-mini"/);
    expect((await settings({ assistantModel: '' })).statusCode).toBe(303);
    expect((await findProject(storage.db, tenant.project.id))!.assistant_model).toBeNull();
  });

  it('refuses an invalid or taken value beside its field', async () => {
    await createProject(storage.db, tenant.orgId, { name: 'Handbook' });
    for (const [fields, name, message] of [
      [{ mcpName: 'handbook' }, 'mcpName', /taken by project/],
      [{ mcpName: 'Hand book' }, 'mcpName', /lower-case letters/],
      [{ siteUrl: 'docs.acme.com' }, 'siteUrl', /site URL is the https:\/\//],
      [{ assistantModel: 'gpt-4.1-mini' }, 'assistantModel', /provider:model/],
    ] as const) {
      const refused = await settings(fields);
      expect(refused.statusCode).toBe(400);
      expect(refused.body).toMatch(new RegExp(`id="project-${name}"[^>]*aria-invalid="true"`));
      expect(refused.body).toMatch(new RegExp(`id="project-${name}-error" role="alert">[^<]*${message.source}`));
    }
    expect((await findProject(storage.db, tenant.project.id))!.mcp_name).toBe('acme');
  });

  it('generates an assistant key shown once with a copy button, and refuses an origin with a path beside its field', async () => {
    const created = await post('/dashboard/keys', {
      kind: 'assistant',
      assistantName: 'Site',
      assistantProject: tenant.project.id,
      origins: 'https://docs.acme.com',
    });
    expect(created.statusCode).toBe(200);
    const key = /data-copy="(quire_dsc_[0-9A-Za-z]{32})"/.exec(created.body)?.[1];
    expect(key).toBeDefined();
    const row = await storage.db.selectFrom('api_keys').selectAll().where('kind', '=', 'assistant').executeTakeFirstOrThrow();
    expect(row).toMatchObject({ project_ids: tenant.project.id, allowed_origins: 'https://docs.acme.com', scopes: '' });
    const listing = await app.inject({ method: 'GET', url: '/dashboard/keys', headers: { cookie: session.cookie } });
    expect(listing.body).not.toContain(key);
    expect(listing.body).toContain('assistant (docs only)');
    const refused = await post('/dashboard/keys', {
      kind: 'assistant',
      assistantName: 'Site',
      assistantProject: tenant.project.id,
      origins: 'https://acme.com/docs',
    });
    expect(refused.statusCode).toBe(400);
    expect(refused.body).toMatch(/id="assistant-origins"[^>]*aria-invalid="true"/);
    expect(refused.body).toContain('id="origins-error" role="alert"');
    const other = await createTenant(storage);
    const stolen = await post('/dashboard/keys', { kind: 'assistant', assistantName: 'Site', assistantProject: other.project.id });
    expect(stolen.statusCode).toBe(400);
    expect((await post(`/dashboard/keys/${row.id}/revoke`, {})).statusCode).toBe(303);
    expect((await storage.db.selectFrom('api_keys').select('revoked_at').where('id', '=', row.id).executeTakeFirstOrThrow()).revoked_at).not.toBeNull();
  });
});
