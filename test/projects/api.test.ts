import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey } from '../../src/accounts/keys.ts';
import { createProject } from '../../src/accounts/projects.ts';
import type { AppContext } from '../../src/http/context.ts';
import type { Storage } from '../../src/storage/dialect.ts';
import { createTenant, testApp, testContext, type Tenant } from '../support/app.ts';
import { testDatabases } from '../support/storage.ts';

const settingsFields = [
  'id',
  'name',
  'repository',
  'ref',
  'docsPath',
  'model',
  'assistantModel',
  'trackerDomains',
  'skipAssets',
  'assetExtensions',
  'siteUrl',
  'docsPublic',
  'mcpName',
  'createdAt',
];

describe.each(testDatabases)('projects over the API on $dialect', (database) => {
  let storage: Storage;
  let context: AppContext;
  let app: FastifyInstance;
  let tenant: Tenant;
  let other: Tenant;
  let readOnly: { authorization: string };
  let assistant: { authorization: string };

  const url = (projectId = tenant.project.id) => `/v1/projects/${projectId}`;
  const patch = (payload: unknown, headers = tenant.auth, projectId = tenant.project.id) =>
    app.inject({ method: 'PATCH', url: url(projectId), headers, payload: payload as object });

  beforeAll(async () => {
    storage = await database.open();
    context = testContext(storage);
    app = await testApp(context);
    tenant = await createTenant(storage);
    other = await createTenant(storage);
    readOnly = { authorization: `Bearer ${(await createKey(storage.db, tenant.orgId, { scopes: ['read'] })).key}` };
    const created = await createKey(storage.db, tenant.orgId, { kind: 'assistant', projectIds: [tenant.project.id] });
    assistant = { authorization: `Bearer ${created.key}` };
  });
  afterAll(async () => {
    await app.close();
    await storage.close();
  });

  it('answers the settings, with the docs settings at their defaults', async () => {
    const response = await app.inject({ method: 'GET', url: url(), headers: readOnly });
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(Object.keys(body).sort()).toEqual([...settingsFields].sort());
    expect(body).toMatchObject({
      id: tenant.project.id,
      name: 'Docs',
      repository: 'https://github.com/acme/docs',
      ref: 'main',
      siteUrl: null,
      docsPublic: false,
      mcpName: 'docs',
      assistantModel: null,
    });
  });

  it('sets the assistant model by the rules of the project model, and clears it with null', async () => {
    const response = await patch({ assistantModel: 'openai:gpt-4.1-mini' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ assistantModel: 'openai:gpt-4.1-mini', model: null });
    const refused = await patch({ assistantModel: 'gpt-4.1-mini' });
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toMatchObject({ code: 'invalid_request', details: [{ path: '/assistantModel' }] });
    expect(refused.json().error).toMatch(/not of the form provider:model/);
    expect((await app.inject({ method: 'GET', url: url(), headers: readOnly })).json().assistantModel).toBe('openai:gpt-4.1-mini');
    expect((await patch({ assistantModel: null })).json().assistantModel).toBeNull();
  });

  it('changes the settings given and keeps the others, with the write scope only', async () => {
    expect((await patch({ docsPublic: true }, readOnly)).statusCode).toBe(403);
    const response = await patch({ siteUrl: 'https://docs.acme.com', docsPublic: true, mcpName: 'acme_docs', skipAssets: false });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ siteUrl: 'https://docs.acme.com', docsPublic: true, mcpName: 'acme_docs', skipAssets: false, ref: 'main' });
    const read = await app.inject({ method: 'GET', url: url(), headers: tenant.auth });
    expect(read.json()).toMatchObject({ siteUrl: 'https://docs.acme.com', docsPublic: true, mcpName: 'acme_docs' });
    expect((await patch({ siteUrl: null })).json().siteUrl).toBeNull();
  });

  it('refuses unknown fields and invalid values with 400, changing nothing', async () => {
    const before = (await app.inject({ method: 'GET', url: url(), headers: tenant.auth })).json();
    for (const [payload, field] of [
      [{ siteUrl: 'ftp://docs.acme.com' }, 'siteUrl'],
      [{ siteUrl: 'docs.acme.com' }, 'siteUrl'],
      [{ mcpName: 'Acme Docs' }, 'mcpName'],
      [{ mcpName: 'a'.repeat(41) }, 'mcpName'],
      [{ model: 'nonsense' }, 'model'],
      [{ assistantModel: 'nonsense' }, 'assistantModel'],
      [{ trackerDomains: ['not a host'] }, 'trackerDomains'],
      [{ docsPublic: 'yes' }, 'docsPublic'],
      [{ mcpName: 'fine', owner: 'me' }, 'owner'],
      [{ ref: '-x --upload-pack=touch' }, 'ref'],
      [{ ref: 'main\u0000' }, 'ref'],
      [{ docsPath: '../other' }, 'docsPath'],
      [{ docsPath: 'docs\n' }, 'docsPath'],
      [{ name: 'Docs\u001b]0;pwned\u0007\u001b[2J' }, 'name'],
      [{}, ''],
    ] as const) {
      const response = await patch(payload);
      expect(response.statusCode, JSON.stringify(payload)).toBe(400);
      expect(response.json().code).toBe('invalid_request');
      if (field) expect(JSON.stringify(response.json().details)).toContain(field);
    }
    expect((await app.inject({ method: 'GET', url: url(), headers: tenant.auth })).json()).toEqual(before);
  });

  it('takes back a ref, name or docs folder saved before they were checked, as a form sends every field, and checks a new one', async () => {
    // A project of its own, not yet in the process's cache of projects, saved as an older version allowed.
    const older = await createTenant(storage);
    await storage.db.updateTable('projects').set({ ref: 'release+1', docs_path: 'docs\t' }).where('id', '=', older.project.id).execute();
    const renamed = await patch({ name: 'Renamed', ref: 'release+1', docsPath: 'docs\t' }, older.auth, older.project.id);
    expect(renamed.json()).toMatchObject({ name: 'Renamed', ref: 'release+1' });
    expect(renamed.statusCode).toBe(200);
    expect((await patch({ ref: 'other+2' }, older.auth, older.project.id)).statusCode).toBe(400);
    expect((await patch({ ref: 'main', docsPath: null }, older.auth, older.project.id)).statusCode).toBe(200);
  });

  it('refuses an MCP name another project of the organization has, saying which to give', async () => {
    const sibling = await createProject(storage.db, tenant.orgId, { name: 'Docs' });
    expect(sibling.mcp_name).toBe('docs');
    const response = await patch({ mcpName: 'docs' });
    expect(response.statusCode).toBe(400);
    expect(response.json().error).toMatch(/"docs" is taken by project .*such as docs_2/);
    // Another organization's names are its own.
    expect((await patch({ mcpName: 'acme_docs' }, other.auth, other.project.id)).statusCode).toBe(200);
  });

  it('refuses a repository the organization cannot reach', async () => {
    const response = await patch({ repository: '/srv/repositories/other-team/docs.git' });
    expect(response.statusCode).toBe(400);
    expect(response.json().details[0].path).toBe('/repository');
    expect((await app.inject({ method: 'GET', url: url(), headers: tenant.auth })).json().repository).toBe('https://github.com/acme/docs');
  });

  it('refuses a repository address holding a user name or password, which every job of the project would show', async () => {
    for (const repository of ['https://ci:ghp_token@github.com/acme/docs', 'https://ghp_token@github.com/acme/docs']) {
      const response = await patch({ repository });
      expect(response.statusCode, repository).toBe(400);
      expect(response.json().error).toMatch(/cannot hold a user name or password.*connect the token instead/);
    }
    expect((await app.inject({ method: 'GET', url: url(), headers: tenant.auth })).json().repository).toBe('https://github.com/acme/docs');
  });

  it('shows a repository saved with a token before such addresses were refused without it, to every key', async () => {
    const saved = (await app.inject({ method: 'GET', url: url(), headers: tenant.auth })).json().repository;
    await storage.db
      .updateTable('projects')
      .set({ repository: 'https://ci:ghp_storedToken123@github.com/acme/docs' })
      .where('id', '=', tenant.project.id)
      .execute();
    try {
      for (const headers of [tenant.auth, readOnly]) {
        const response = await app.inject({ method: 'GET', url: url(), headers });
        expect(response.json().repository).toBe('https://github.com/acme/docs');
        expect(response.body).not.toContain('ghp_storedToken123');
      }
    } finally {
      await storage.db.updateTable('projects').set({ repository: saved }).where('id', '=', tenant.project.id).execute();
    }
  });

  it('is 404 for another organization’s project and an unknown one, whatever the body', async () => {
    for (const projectId of [other.project.id, 'prj_unknown']) {
      expect((await app.inject({ method: 'GET', url: url(projectId), headers: tenant.auth })).statusCode).toBe(404);
      expect((await patch({ docsPublic: true }, tenant.auth, projectId)).statusCode).toBe(404);
      expect((await patch({ nonsense: 1 }, tenant.auth, projectId)).statusCode).toBe(404);
    }
    expect((await app.inject({ method: 'GET', url: url(other.project.id), headers: other.auth })).json().docsPublic).toBe(false);
  });

  it('tells the process when the repository or ref is saved, and only then', async () => {
    const changed: string[] = [];
    const listener = ({ projectId }: { projectId: string }) => changed.push(projectId);
    context.events.on('project-source-changed', listener);
    try {
      await patch({ name: 'Acme docs' });
      await patch({ ref: 'main' });
      expect(changed).toEqual([]);
      expect((await patch({ ref: 'release' })).statusCode).toBe(200);
      expect(changed).toEqual([tenant.project.id]);
    } finally {
      context.events.off('project-source-changed', listener);
    }
  });

  it('refuses assistant keys on every admin operation, as unknown keys', async () => {
    const projectId = tenant.project.id;
    for (const [method, path] of [
      ['GET', `/v1/projects/${projectId}`],
      ['PATCH', `/v1/projects/${projectId}`],
      ['GET', `/v2/agent/${projectId}/jobs`],
      ['POST', `/v2/agent/${projectId}/job`],
      ['GET', `/v1/analytics/${projectId}/visitors`],
      ['POST', `/v1/analytics/${projectId}/events`],
    ] as const) {
      const response = await app.inject({ method, url: path, headers: assistant, payload: method === 'GET' ? undefined : {} });
      expect(response.statusCode, `${method} ${path}`).toBe(401);
      expect(response.json().code).toBe('unauthorized');
      expect(response.headers['www-authenticate']).toMatch(/^Bearer/);
    }
  });

  it('is described in the OpenAPI document', async () => {
    const document = (await app.inject({ method: 'GET', url: '/openapi.json' })).json();
    expect(Object.keys(document.paths['/v1/projects/{projectId}']).sort()).toEqual(['get', 'patch']);
  });
});
