import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPerson } from '../../src/accounts/people/people.ts';
import { csrfToken, openSession } from '../../src/accounts/people/sessions.ts';
import { createSharedLink, listSharedLinks } from '../../src/analytics/query/shared-links.ts';
import type { AppContext } from '../../src/http/context.ts';
import type { Storage } from '../../src/storage/dialect.ts';
import { createTenant, testApp, testContext, type Tenant } from '../support/app.ts';
import { testDatabases } from '../support/storage.ts';
import { form, signIn, type SignedIn } from './session.ts';

describe.each(testDatabases)('the dashboard’s shared links on $dialect', (database) => {
  let storage: Storage;
  let context: AppContext;
  let app: FastifyInstance;
  let tenant: Tenant;
  let other: Tenant;
  let owner: SignedIn;
  let member: SignedIn;
  let stranger: SignedIn;

  beforeAll(async () => {
    storage = await database.open();
    context = testContext(storage);
    app = await testApp(context);
    tenant = await createTenant(storage);
    other = await createTenant(storage);
    owner = await signIn(app, storage, tenant.orgId);
    stranger = await signIn(app, storage, other.orgId);
    const person = await createPerson(storage.db, tenant.orgId, { name: 'Mia', email: 'mia@acme.test', role: 'member', passwordHash: null });
    const session = await openSession(storage.db, tenant.orgId, person.id, 1);
    member = { cookie: `quire_session=${session.token}`, csrf: csrfToken(session.token) };
  });
  afterAll(async () => {
    await app.close();
    await storage.close();
  });

  const linksUrl = (projectId = tenant.project.id) => `/dashboard/projects/${projectId}/analytics/shared-links`;
  const get = (url: string, session: SignedIn = owner) => app.inject({ method: 'GET', url, headers: { cookie: session.cookie } });
  const post = (url: string, session: SignedIn = owner, csrf = session.csrf) =>
    app.inject({
      method: 'POST',
      url,
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: session.cookie },
      payload: form(csrf ? { csrf } : {}),
    });

  it('creates a link whose address is shown once, lists it without its token, and revokes it at once', async () => {
    const created = await post(linksUrl());
    expect(created.statusCode).toBe(201);
    const url = /<code>([^<]+\/share\/[A-Za-z0-9_-]{32})<\/code>/.exec(created.body)![1];
    const path = new URL(url).pathname;
    expect((await app.inject({ method: 'GET', url: path })).statusCode).toBe(200);
    const [link] = await listSharedLinks(storage.db, tenant.project.id);
    const listed = await get(linksUrl());
    expect(listed.body).toContain(link.id);
    expect(listed.body).not.toContain(path);
    const revoked = await post(`${linksUrl()}/${link.id}/revoke`);
    expect(revoked.statusCode).toBe(200);
    expect(revoked.body).toContain('The link was revoked');
    expect((await app.inject({ method: 'GET', url: path })).statusCode).toBe(404);
    expect((await app.inject({ method: 'GET', url: `${path}/realtime` })).statusCode).toBe(404);
    // A second revoke (another tab) says nothing was revoked.
    expect((await post(`${linksUrl()}/${link.id}/revoke`)).body).not.toContain('The link was revoked');
  });

  it('lets members see links but not create or revoke them, and changes nothing for them', async () => {
    const link = await createSharedLink(storage.db, tenant.project.id);
    const page = await get(linksUrl(), member);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('ask one for a link');
    expect(page.body).not.toContain('Create a shared link');
    expect((await post(linksUrl(), member)).statusCode).toBe(403);
    expect((await post(`${linksUrl()}/${link.id}/revoke`, member)).statusCode).toBe(403);
    expect((await app.inject({ method: 'GET', url: `/share/${link.token}` })).statusCode).toBe(200);
    expect((await listSharedLinks(storage.db, tenant.project.id)).map((row) => row.id)).toEqual([link.id]);
  });

  it('refuses forms without the session’s token, another organization, and another project’s link ids', async () => {
    const link = await createSharedLink(storage.db, tenant.project.id);
    const before = await listSharedLinks(storage.db, tenant.project.id);
    expect((await post(linksUrl(), owner, '')).statusCode).toBe(403);
    expect((await post(`${linksUrl()}/${link.id}/revoke`, owner, 'wrong')).statusCode).toBe(403);
    expect((await get(linksUrl(), stranger)).statusCode).toBe(404);
    expect((await post(linksUrl(), stranger)).statusCode).toBe(404);
    expect((await post(`${linksUrl()}/${link.id}/revoke`, stranger)).statusCode).toBe(404);
    // The stranger's own project with this organization's link id: nothing of this project is revoked.
    expect((await post(`${linksUrl(other.project.id)}/${link.id}/revoke`, stranger)).body).not.toContain('The link was revoked');
    expect(await listSharedLinks(storage.db, tenant.project.id)).toEqual(before);
    expect(await listSharedLinks(storage.db, other.project.id)).toEqual([]);
    // The live count of the dashboard is the organization's own too.
    expect((await get(`/dashboard/projects/${tenant.project.id}/analytics/realtime`, stranger)).statusCode).toBe(404);
    expect((await get(`/dashboard/projects/${tenant.project.id}/analytics/realtime`)).json()).toEqual({ human: 0, ai: 0, total: 0 });
  });
});
