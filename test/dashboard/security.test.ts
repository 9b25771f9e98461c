import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSignInLink } from '../../src/accounts/people/sessions.ts';
import type { Storage } from '../../src/storage/dialect.ts';
import { createTenant, testApp, testContext, type Tenant } from '../support/app.ts';
import { testDatabases } from '../support/storage.ts';
import { cookieValue, csrfOf, form, signIn, type SignedIn } from './session.ts';

const formType = { 'content-type': 'application/x-www-form-urlencoded' };

describe.each(testDatabases)('dashboard security on $dialect', (database) => {
  let storage: Storage;
  let app: FastifyInstance;
  let acme: Tenant;
  let globex: Tenant;
  let session: SignedIn;
  let globexJobId: string;

  beforeAll(async () => {
    storage = await database.open();
    app = await testApp(testContext(storage));
    acme = await createTenant(storage);
    globex = await createTenant(storage, { project: { name: 'Globex secret docs' } });
    session = await signIn(app, storage, acme.orgId);
    const job = await app.inject({ method: 'POST', url: `/v2/agent/${globex.project.id}/job`, headers: globex.auth, payload: { prompt: 'Globex job' } });
    globexJobId = job.json().id;
  });
  afterAll(async () => {
    await app.close();
    await storage.close();
  });

  const keyCount = async (orgId: string) => (await storage.db.selectFrom('api_keys').select('id').where('org_id', '=', orgId).execute()).length;

  it('redirects every page to the sign-in page without a session, and with an unknown session', async () => {
    const acmeKey = await storage.db.selectFrom('api_keys').select('id').where('org_id', '=', acme.orgId).executeTakeFirstOrThrow();
    const project = `/dashboard/projects/${acme.project.id}`;
    const pages = [
      '/dashboard',
      '/dashboard/keys',
      `/dashboard/keys/${acmeKey.id}/revoke`,
      '/dashboard/projects',
      project,
      `${project}/docs`,
      `${project}/jobs`,
      `${project}/jobs/${globexJobId}/live`,
      `${project}/analytics`,
      `${project}/analytics/visitors.csv`,
      `/dashboard/changes/${globexJobId}`,
    ];
    for (const url of pages) {
      for (const cookie of [undefined, 'quire_session=forged0token']) {
        const response = await app.inject({ method: 'GET', url, headers: cookie ? { cookie } : {} });
        expect(response.statusCode, url).toBe(303);
        expect(response.headers.location).toBe('/dashboard/sign-in');
        expect(response.body).not.toContain(acme.project.id);
      }
    }
  });

  it('refuses every action without a session and changes nothing', async () => {
    const before = await keyCount(acme.orgId);
    const actions: [string, Record<string, string>][] = [
      ['/dashboard/keys', { name: 'stolen', scopes: 'read' }],
      ['/dashboard/projects', { name: 'Sneaky' }],
      [`/dashboard/projects/${acme.project.id}`, { name: 'Renamed' }],
      [`/dashboard/projects/${acme.project.id}/jobs`, { prompt: 'do things' }],
      [`/dashboard/projects/${acme.project.id}/docs/refresh`, {}],
      [`/dashboard/projects/${acme.project.id}/docs/public`, { docsPublic: 'on' }],
      [`/dashboard/keys/${(await storage.db.selectFrom('api_keys').select('id').where('org_id', '=', acme.orgId).executeTakeFirstOrThrow()).id}/revoke`, {}],
      ['/dashboard/sign-out', {}],
    ];
    for (const [url, fields] of actions) {
      const response = await app.inject({ method: 'POST', url, headers: formType, payload: form({ ...fields, csrf: session.csrf }) });
      expect(response.statusCode, url).toBe(401);
    }
    expect(await keyCount(acme.orgId)).toBe(before);
    expect((await storage.db.selectFrom('api_keys').select('revoked_at').where('org_id', '=', acme.orgId).execute()).map((key) => key.revoked_at)).toEqual([
      null,
    ]);
    expect((await storage.db.selectFrom('projects').select('name').where('id', '=', acme.project.id).executeTakeFirstOrThrow()).name).toBe('Docs');
    expect(await storage.db.selectFrom('projects').select('id').where('name', '=', 'Sneaky').executeTakeFirst()).toBeUndefined();
  });

  it('requires the CSRF token of the session on every form', async () => {
    const before = await keyCount(acme.orgId);
    const other = await signIn(app, storage, acme.orgId);
    for (const csrf of [undefined, 'wrong', other.csrf]) {
      const fields = { name: 'no token', scopes: 'read', ...(csrf ? { csrf } : {}) };
      const response = await app.inject({ method: 'POST', url: '/dashboard/keys', headers: { ...formType, cookie: session.cookie }, payload: form(fields) });
      expect(response.statusCode).toBe(403);
    }
    const signOut = await app.inject({ method: 'POST', url: '/dashboard/sign-out', headers: { ...formType, cookie: session.cookie }, payload: '' });
    expect(signOut.statusCode).toBe(403);
    expect(await keyCount(acme.orgId)).toBe(before);
    const accepted = await app.inject({
      method: 'POST',
      url: '/dashboard/keys',
      headers: { ...formType, cookie: session.cookie },
      payload: form({ name: 'with token', scopes: 'read', csrf: session.csrf }),
    });
    expect(accepted.statusCode).toBe(200);
    expect(await keyCount(acme.orgId)).toBe(before + 1);
  });

  it("never shows another organization's projects, jobs or keys", async () => {
    const keys = await app.inject({ method: 'GET', url: '/dashboard/keys', headers: { cookie: session.cookie } });
    expect(keys.body).toContain(acme.project.id);
    expect(keys.body).not.toContain(globex.project.id);
    const foreign = [
      `/dashboard/projects/${globex.project.id}`,
      `/dashboard/projects/${globex.project.id}/docs`,
      `/dashboard/projects/${globex.project.id}/jobs`,
      `/dashboard/projects/${globex.project.id}/jobs/${globexJobId}`,
      `/dashboard/projects/${globex.project.id}/jobs/${globexJobId}/live`,
      `/dashboard/projects/${acme.project.id}/jobs/${globexJobId}`,
      `/dashboard/projects/${globex.project.id}/analytics`,
      `/dashboard/projects/${globex.project.id}/analytics/visitors.csv`,
    ];
    for (const url of foreign) {
      const response = await app.inject({ method: 'GET', url, headers: { cookie: session.cookie } });
      expect(response.statusCode, url).toBe(404);
      expect(response.body).not.toContain('Globex');
    }
    const update = await app.inject({
      method: 'POST',
      url: `/dashboard/projects/${globex.project.id}`,
      headers: { ...formType, cookie: session.cookie },
      payload: form({ name: 'Taken over', csrf: session.csrf }),
    });
    expect(update.statusCode).toBe(404);
    const scoped = await app.inject({
      method: 'POST',
      url: '/dashboard/keys',
      headers: { ...formType, cookie: session.cookie },
      payload: form({ name: 'reach', scopes: 'read', projects: globex.project.id, csrf: session.csrf }),
    });
    expect(scoped.statusCode).toBe(400);
    const globexKey = await storage.db.selectFrom('api_keys').select('id').where('org_id', '=', globex.orgId).executeTakeFirstOrThrow();
    const revoke = await app.inject({
      method: 'POST',
      url: `/dashboard/keys/${globexKey.id}/revoke`,
      headers: { ...formType, cookie: session.cookie },
      payload: form({ csrf: session.csrf }),
    });
    expect(revoke.statusCode).toBe(404);
    const stillWorks = await app.inject({ method: 'GET', url: `/v2/agent/${globex.project.id}/jobs`, headers: globex.auth });
    expect(stillWorks.statusCode).toBe(200);
    expect((await storage.db.selectFrom('projects').select('name').where('id', '=', globex.project.id).executeTakeFirstOrThrow()).name).toBe(
      'Globex secret docs',
    );
  });

  it('accepts a sign-in link once, refuses expired links, and sets a locked-down cookie', async () => {
    const link = await createSignInLink(storage.db, acme.orgId, 30);
    const page = await app.inject({ method: 'GET', url: `/dashboard/sign-in?token=${link.token}` });
    const formCookie = `quire_sign_in=${cookieValue(page.headers['set-cookie'], 'quire_sign_in')}`;
    const redeem = () =>
      app.inject({
        method: 'POST',
        url: '/dashboard/sign-in',
        headers: { ...formType, cookie: formCookie },
        payload: form({ token: link.token, csrf: csrfOf(page.body) }),
      });
    const first = await redeem();
    expect(first.statusCode).toBe(303);
    const setCookie = [first.headers['set-cookie']].flat().find((header) => header?.startsWith('quire_session='));
    expect(setCookie).toMatch(/; Path=\/dashboard; Max-Age=\d+; HttpOnly; SameSite=Lax$/);
    const second = await redeem();
    expect(second.statusCode).toBe(400);
    expect(cookieValue(second.headers['set-cookie'], 'quire_session')).toBeUndefined();

    const expired = await createSignInLink(storage.db, acme.orgId, 1, Date.now() - 120_000);
    const late = await app.inject({
      method: 'POST',
      url: '/dashboard/sign-in',
      headers: { ...formType, cookie: formCookie },
      payload: form({ token: expired.token, csrf: csrfOf(page.body) }),
    });
    expect(late.statusCode).toBe(400);
    const noFormCookie = await app.inject({
      method: 'POST',
      url: '/dashboard/sign-in',
      headers: formType,
      payload: form({ token: link.token, csrf: csrfOf(page.body) }),
    });
    expect(noFormCookie.statusCode).toBe(403);
    const stored = await storage.db.selectFrom('dashboard_sign_in_links').select('token_hash').execute();
    expect(stored.map((row) => row.token_hash)).not.toContain(link.token);
  });

  it('marks the session cookie Secure when the public URL is https', async () => {
    const secureApp = await testApp(testContext(storage, { config: { publicUrl: 'https://quire.example.com' } }));
    const link = await createSignInLink(storage.db, acme.orgId, 30);
    const page = await secureApp.inject({ method: 'GET', url: `/dashboard/sign-in?token=${link.token}` });
    const response = await secureApp.inject({
      method: 'POST',
      url: '/dashboard/sign-in',
      headers: { ...formType, cookie: `quire_sign_in=${cookieValue(page.headers['set-cookie'], 'quire_sign_in')}` },
      payload: form({ token: link.token, csrf: csrfOf(page.body) }),
    });
    expect([response.headers['set-cookie']].flat().join('\n')).toMatch(/quire_session=[^;]+;.*HttpOnly; SameSite=Lax; Secure/);
    await secureApp.close();
  });

  it('escapes values and sends a strict content security policy', async () => {
    await app.inject({
      method: 'POST',
      url: '/dashboard/projects',
      headers: { ...formType, cookie: session.cookie },
      payload: form({ name: '<script>alert(1)</script>', csrf: session.csrf }),
    });
    const page = await app.inject({ method: 'GET', url: '/dashboard/projects', headers: { cookie: session.cookie } });
    expect(page.body).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(page.body).not.toContain('<script>alert(1)');
    expect(page.headers['content-security-policy']).toContain("script-src 'self'");
    expect(page.headers['cache-control']).toBe('no-store');
  });

  it('never renders a pull-request link that is not http(s), even one stored before links were checked', async () => {
    const job = (await app.inject({ method: 'POST', url: `/v2/agent/${acme.project.id}/job`, headers: acme.auth, payload: { prompt: 'Hostile link' } })).json();
    await storage.db.updateTable('jobs').set({ status: 'completed', pr_link: 'javascript:alert(document.cookie)' }).where('id', '=', job.id).execute();
    const pages = [
      `/dashboard/projects/${acme.project.id}/jobs`,
      `/dashboard/projects/${acme.project.id}/jobs/${job.id}`,
      `/dashboard/projects/${acme.project.id}/jobs/${job.id}/live`,
    ];
    for (const url of pages) {
      const page = await app.inject({ method: 'GET', url, headers: { cookie: session.cookie } });
      expect(page.statusCode, url).toBe(200);
      expect(page.body, url).not.toContain('javascript:');
    }
    const api = await app.inject({ method: 'GET', url: `/v2/agent/${acme.project.id}/job/${job.id}`, headers: acme.auth });
    expect(api.json().prLink).toBeNull();
  });

  it('keeps dashboard pages out of the OpenAPI document', async () => {
    const paths = Object.keys((await app.inject({ url: '/openapi.json' })).json().paths);
    expect(paths).toContain('/v2/agent/{projectId}/job');
    expect(paths.filter((path) => path.startsWith('/dashboard'))).toEqual([]);
  });

  it('generates one key per form, however often the form is sent again', async () => {
    const page = await app.inject({ method: 'GET', url: '/dashboard/keys', headers: { cookie: session.cookie } });
    const formId = /name="form" value="([0-9a-f]{32})"/.exec(page.body)![1];
    const before = await keyCount(acme.orgId);
    const send = (id: string) =>
      app.inject({
        method: 'POST',
        url: '/dashboard/keys',
        headers: { ...formType, cookie: session.cookie },
        payload: form({ name: 'reloaded', scopes: 'read', csrf: session.csrf, form: id }),
      });
    const first = await send(formId);
    expect(first.statusCode).toBe(200);
    expect(first.body).toMatch(/quire_[0-9A-Za-z]{40}/);
    const again = await send(formId);
    expect(again.statusCode).toBe(409);
    expect(again.body).not.toMatch(/quire_[0-9A-Za-z]{40}/);
    expect(again.body).toContain('already sent');
    expect(await keyCount(acme.orgId)).toBe(before + 1);
    // The page after a generation carries a new form id, so the next key is generated normally.
    const nextId = /name="form" value="([0-9a-f]{32})"/.exec(first.body)![1];
    expect(nextId).not.toBe(formId);
    expect((await send(nextId)).statusCode).toBe(200);
    expect((await send('not-a-form-id')).statusCode).toBe(400);
    expect(await keyCount(acme.orgId)).toBe(before + 2);
  });

  it('ends a session that has been idle for QUIRE_DASHBOARD_IDLE_HOURS, and keeps one in use', async () => {
    const sessionIds = async () => new Set((await storage.db.selectFrom('dashboard_sessions').select('id').execute()).map((row) => row.id));
    const before = await sessionIds();
    const idle = await signIn(app, storage, acme.orgId);
    const afterIdle = await sessionIds();
    const used = await signIn(app, storage, acme.orgId);
    const idleRow = { id: [...afterIdle].find((id) => !before.has(id))! };
    const usedRow = { id: [...(await sessionIds())].find((id) => !afterIdle.has(id))! };
    const hour = 3_600_000;
    // Both signed in 20 hours ago; one was used 11 hours ago, the other not since (idle limit 12 h).
    await storage.db
      .updateTable('dashboard_sessions')
      .set({ created_at: Date.now() - 20 * hour, last_seen_at: Date.now() - 11 * hour })
      .where('id', '=', usedRow.id)
      .execute();
    await storage.db
      .updateTable('dashboard_sessions')
      .set({ created_at: Date.now() - 20 * hour, last_seen_at: Date.now() - 20 * hour })
      .where('id', '=', idleRow.id)
      .execute();
    const stale = await app.inject({ method: 'GET', url: '/dashboard/keys', headers: { cookie: idle.cookie } });
    expect(stale.statusCode).toBe(303);
    expect(stale.headers.location).toBe('/dashboard/sign-in');
    const live = await app.inject({ method: 'GET', url: '/dashboard/keys', headers: { cookie: used.cookie } });
    expect(live.statusCode).toBe(200);
    const seen = await storage.db.selectFrom('dashboard_sessions').select('last_seen_at').where('id', '=', usedRow.id).executeTakeFirstOrThrow();
    expect(Date.now() - seen.last_seen_at!).toBeLessThan(60_000);
  });

  it('ends the session on sign-out', async () => {
    const own = await signIn(app, storage, acme.orgId);
    const response = await app.inject({
      method: 'POST',
      url: '/dashboard/sign-out',
      headers: { ...formType, cookie: own.cookie },
      payload: form({ csrf: own.csrf }),
    });
    expect(response.statusCode).toBe(200);
    const after = await app.inject({ method: 'GET', url: '/dashboard/keys', headers: { cookie: own.cookie } });
    expect(after.statusCode).toBe(303);
  });
});
