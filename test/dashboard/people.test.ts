import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addConnection } from '../../src/accounts/connections.ts';
import { createInvitation } from '../../src/accounts/people/invitations.ts';
import { createPerson } from '../../src/accounts/people/people.ts';
import { hashPassword } from '../../src/accounts/people/passwords.ts';
import type { AppContext } from '../../src/http/context.ts';
import type { Storage } from '../../src/storage/dialect.ts';
import { createTenant, testApp, testContext, type Tenant } from '../support/app.ts';
import { testDatabases } from '../support/storage.ts';
import { cookieValue, csrfOf, form, signIn, type SignedIn } from './session.ts';

const formType = { 'content-type': 'application/x-www-form-urlencoded' };
const password = 'correct horse battery staple';

describe.each(testDatabases)('people, invitations and roles on $dialect', (database) => {
  let storage: Storage;
  let context: AppContext;
  let app: FastifyInstance;
  let acme: Tenant;
  let globex: Tenant;
  let operator: SignedIn;

  beforeAll(async () => {
    storage = await database.open();
    context = testContext(storage, { config: { secretKey: randomBytes(32), signInRateLimit: 5 } });
    app = await testApp(context);
    acme = await createTenant(storage);
    globex = await createTenant(storage);
    operator = await signIn(app, storage, acme.orgId);
  });
  afterAll(async () => {
    await app.close();
    await storage.close();
  });

  const post = (url: string, session: SignedIn | undefined, fields: Record<string, string | string[]>, cookie = session?.cookie) =>
    app.inject({
      method: 'POST',
      url,
      headers: { ...formType, ...(cookie ? { cookie } : {}) },
      payload: form({ ...(session ? { csrf: session.csrf } : {}), ...fields }),
    });

  /** Opens an invitation link as a browser does and joins with the fields; returns the answer and the session cookie. */
  async function join(token: string, fields: Record<string, string>) {
    const page = await app.inject({ method: 'GET', url: `/dashboard/invitations/${token}` });
    if (page.statusCode !== 200) return { response: page, cookie: undefined };
    const formCookie = `quire_sign_in=${cookieValue(page.headers['set-cookie'], 'quire_sign_in')}`;
    const response = await app.inject({
      method: 'POST',
      url: `/dashboard/invitations/${token}`,
      headers: { ...formType, cookie: formCookie },
      payload: form({ csrf: csrfOf(page.body), ...fields }),
    });
    const session = cookieValue(response.headers['set-cookie'], 'quire_session');
    return { response, cookie: session ? `quire_session=${session}` : undefined };
  }

  async function sessionOf(cookie: string): Promise<SignedIn> {
    const page = await app.inject({ method: 'GET', url: '/dashboard/account', headers: { cookie } });
    expect(page.statusCode).toBe(200);
    return { cookie, csrf: csrfOf(page.body) };
  }

  async function invite(role: 'owner' | 'member', session = operator): Promise<string> {
    const response = await post('/dashboard/people/invitations', session, { role, note: `a ${role}` });
    expect(response.statusCode).toBe(200);
    return /\/dashboard\/invitations\/([0-9A-Za-z]+)/.exec(response.body)![1];
  }

  let addresses = 0;
  /** Signs in with email and password through the sign-in form, from a fresh client address unless given one. */
  async function passwordSignIn(email: string, secret: string, remoteAddress = `203.0.113.${(addresses += 1)}`) {
    const page = await app.inject({ method: 'GET', url: '/dashboard/sign-in' });
    const formCookie = `quire_sign_in=${cookieValue(page.headers['set-cookie'], 'quire_sign_in')}`;
    return app.inject({
      method: 'POST',
      url: '/dashboard/sign-in/password',
      remoteAddress,
      headers: { ...formType, cookie: formCookie },
      payload: form({ csrf: csrfOf(page.body), email, password: secret }),
    });
  }

  it('joins with an invitation link once; the link works only once', async () => {
    const token = await invite('owner');
    const joined = await join(token, { name: 'Olga Owner', email: 'Olga@Acme.test', password });
    expect(joined.response.statusCode).toBe(303);
    expect(joined.response.headers.location).toBe('/dashboard/account?welcome=1');
    const setCookie = String([joined.response.headers['set-cookie']].flat().find((header) => header?.startsWith('quire_session=')));
    expect(setCookie).toContain('HttpOnly');
    expect(setCookie).toContain('SameSite=Lax');
    const account = await app.inject({ method: 'GET', url: '/dashboard/account', headers: { cookie: joined.cookie! } });
    expect(account.body).toContain('olga@acme.test');
    expect(account.body).toContain('owner');

    const again = await join(token, { name: 'Mallory', email: 'mallory@evil.test', password });
    expect(again.response.statusCode).toBe(404);
    expect(again.cookie).toBeUndefined();
    expect(await storage.db.selectFrom('people').select('id').where('email', '=', 'mallory@evil.test').executeTakeFirst()).toBeUndefined();
  });

  it('marks the session cookie Secure when Quire is served over https', async () => {
    const secureApp = await testApp(testContext(storage, { config: { publicUrl: 'https://quire.example.test' } }));
    try {
      const { token } = await createInvitation(storage.db, acme.orgId, { role: 'member', note: 'secure', hours: 1 });
      const page = await secureApp.inject({ method: 'GET', url: `/dashboard/invitations/${token}` });
      const response = await secureApp.inject({
        method: 'POST',
        url: `/dashboard/invitations/${token}`,
        headers: { ...formType, cookie: `quire_sign_in=${cookieValue(page.headers['set-cookie'], 'quire_sign_in')}` },
        payload: form({ csrf: csrfOf(page.body), name: 'Sam Secure', email: 'sam@acme.test', password }),
      });
      const setCookie = String([response.headers['set-cookie']].flat().find((header) => header?.startsWith('quire_session=')));
      expect(setCookie).toMatch(/; HttpOnly; SameSite=Lax; Secure$/);
    } finally {
      await secureApp.close();
    }
  });

  it('asks for a password when passkeys cannot work at Quire’s address, and names the port it runs on', async () => {
    const ipApp = await testApp(testContext(storage, { config: { host: '127.0.0.1', port: 9123 } }));
    try {
      const { token } = await createInvitation(storage.db, acme.orgId, { role: 'member', note: 'by IP', hours: 1 });
      const page = await ipApp.inject({ method: 'GET', url: `/dashboard/invitations/${token}` });
      expect(page.body).not.toContain('Leave it empty');
      expect(page.body).not.toContain('Password (optional)');
      expect(page.body).toMatch(/<input id="join-password"[^>]* required minlength="12"/);
      expect(page.body).toContain('http://localhost:9123 on this machine');
      expect(page.body).not.toContain('localhost:8080');
      const signInPage = await ipApp.inject({ method: 'GET', url: '/dashboard/sign-in' });
      expect(signInPage.body).toContain('address is http://127.0.0.1:9123: set QUIRE_PUBLIC_URL');
      expect(signInPage.body).toContain('http://localhost:9123 on this machine');

      const response = await ipApp.inject({
        method: 'POST',
        url: `/dashboard/invitations/${token}`,
        headers: { ...formType, cookie: `quire_sign_in=${cookieValue(page.headers['set-cookie'], 'quire_sign_in')}` },
        payload: form({ csrf: csrfOf(page.body), name: 'Ivy', email: 'ivy@acme.test', password: '' }),
      });
      expect(response.statusCode).toBe(400);
      expect(response.body).toContain('id="password-error"');
      expect(response.body).toContain('passkeys cannot be used at this address');
      expect(await storage.db.selectFrom('people').select('id').where('email', '=', 'ivy@acme.test').executeTakeFirst()).toBeUndefined();
    } finally {
      await ipApp.close();
    }
  });

  it('lets a person join without a password when Quire has a host name for passkeys', async () => {
    const namedApp = await testApp(testContext(storage, { config: { publicUrl: 'http://localhost:9123' } }));
    try {
      const { token } = await createInvitation(storage.db, acme.orgId, { role: 'member', note: 'by name', hours: 1 });
      const page = await namedApp.inject({ method: 'GET', url: `/dashboard/invitations/${token}` });
      expect(page.body).toContain('Password (optional)');
      expect(page.body).toContain('Leave it empty to sign in with a passkey only');
      const response = await namedApp.inject({
        method: 'POST',
        url: `/dashboard/invitations/${token}`,
        headers: { ...formType, cookie: `quire_sign_in=${cookieValue(page.headers['set-cookie'], 'quire_sign_in')}` },
        payload: form({ csrf: csrfOf(page.body), name: 'Nina', email: 'nina@acme.test', password: '' }),
      });
      expect(response.statusCode).toBe(303);
    } finally {
      await namedApp.close();
    }
  });

  it('refuses an expired invitation', async () => {
    const { token } = await createInvitation(storage.db, acme.orgId, { role: 'owner', note: 'late', hours: 1 }, Date.now() - 2 * 3_600_000);
    const joined = await join(token, { name: 'Late', email: 'late@acme.test', password });
    expect(joined.response.statusCode).toBe(404);
    expect(joined.response.body).toContain('expired');
  });

  it('refuses a weak password and a taken email beside the field, and keeps the invitation usable', async () => {
    const token = await invite('member');
    const weak = await join(token, { name: 'Wes', email: 'wes@acme.test', password: 'short' });
    expect(weak.response.statusCode).toBe(400);
    expect(weak.response.body).toContain('id="password-error"');
    const taken = await join(token, { name: 'Wes', email: 'olga@acme.test', password });
    expect(taken.response.statusCode).toBe(409);
    expect(taken.response.body).toContain('already has an account');
    expect((await join(token, { name: 'Wes', email: 'wes@acme.test', password })).response.statusCode).toBe(303);
  });

  it('signs in with the password, and refuses a wrong one without saying which part was wrong', async () => {
    const right = await passwordSignIn('olga@acme.test', password);
    expect(right.statusCode).toBe(303);
    expect(cookieValue(right.headers['set-cookie'], 'quire_session')).toBeTruthy();
    const wrong = await passwordSignIn('olga@acme.test', 'not the password at all');
    const unknown = await passwordSignIn('nobody@acme.test', password);
    expect(wrong.statusCode).toBe(400);
    expect(unknown.statusCode).toBe(400);
    expect(cookieValue(wrong.headers['set-cookie'], 'quire_session')).toBeUndefined();
    expect(wrong.body).toContain('do not match an account');
    expect(unknown.body).toContain('do not match an account');
  });

  it('limits password attempts per account and per address (an IPv6 /64 counted as one)', async () => {
    await createPerson(storage.db, acme.orgId, { name: 'Target', email: 'target@acme.test', role: 'member', passwordHash: await hashPassword(password) });
    // Guesses from many addresses: the account's own limit stops them, even the right password.
    for (let index = 0; index < 5; index += 1)
      expect((await passwordSignIn('target@acme.test', `guess ${index}`, `198.51.100.${index + 1}`)).statusCode).toBe(400);
    const limited = await passwordSignIn('target@acme.test', password, '198.51.100.99');
    expect(limited.statusCode).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(cookieValue(limited.headers['set-cookie'], 'quire_session')).toBeUndefined();
    // Guesses at many accounts from one address: the address's limit stops them.
    for (let index = 0; index < 5; index += 1) expect((await passwordSignIn(`someone${index}@acme.test`, 'guess', '192.0.2.7')).statusCode).toBe(400);
    expect((await passwordSignIn('olga@acme.test', password, '192.0.2.7')).statusCode).toBe(429);
    // From a new address of one IPv6 /64 each time: one host's share of addresses, one limit.
    for (let index = 0; index < 5; index += 1)
      expect((await passwordSignIn(`other${index}@acme.test`, 'guess', `2001:db8:1:2::${index + 1}`)).statusCode).toBe(400);
    expect((await passwordSignIn('olga@acme.test', password, '2001:db8:1:2::99')).statusCode).toBe(429);
    // A dozen deliberately slow password hashes: on a machine busy with other work they outlast the default timeout.
  }, 90_000);

  it("refuses a member's attempts to manage keys, connections and people on the server, and changes nothing", async () => {
    const token = await invite('member');
    const { cookie } = await join(token, { name: 'Mia Member', email: 'mia@acme.test', password });
    const member = await sessionOf(cookie!);
    const keyId = (await storage.db.selectFrom('api_keys').select('id').where('org_id', '=', acme.orgId).executeTakeFirstOrThrow()).id;
    const connection = await addConnection(storage.db, context.config, acme.orgId, { kind: 'github-token', account: 'acme-bot', token: 'ghp_memberTest' });
    const olga = (await storage.db.selectFrom('people').select('id').where('email', '=', 'olga@acme.test').executeTakeFirstOrThrow()).id;
    const before = JSON.stringify(
      await Promise.all(
        ['api_keys', 'people', 'invitations', 'code_host_connections'].map((table) =>
          storage.db
            .selectFrom(table as 'people')
            .selectAll()
            .execute(),
        ),
      ),
    );

    const pages = ['/dashboard/connections', '/dashboard/people', `/dashboard/keys/${keyId}/revoke`];
    for (const url of pages) {
      const response = await app.inject({ method: 'GET', url, headers: { cookie: member.cookie } });
      expect(response.statusCode, url).toBe(403);
      expect(response.body).toContain('Only an owner');
    }
    const actions: [string, Record<string, string>][] = [
      ['/dashboard/keys', { name: 'member key', scopes: 'read' }],
      [`/dashboard/keys/${keyId}/revoke`, {}],
      ['/dashboard/connections', { kind: 'github-token', token: 'ghp_x' }],
      [`/dashboard/connections/${connection.id}/remove`, {}],
      ['/dashboard/people/invitations', { role: 'owner' }],
      [`/dashboard/people/${olga}/role`, { role: 'member' }],
      [`/dashboard/people/${olga}/remove`, {}],
    ];
    for (const [url, fields] of actions) {
      const response = await post(url, member, fields);
      expect(response.statusCode, url).toBe(403);
    }
    const keys = await app.inject({ method: 'GET', url: '/dashboard/keys', headers: { cookie: member.cookie } });
    expect(keys.statusCode).toBe(200);
    expect(keys.body).not.toContain('Generate key');
    expect(keys.body).not.toContain('href="/dashboard/people"');
    expect(keys.body).toContain(acme.project.id);
    const after = JSON.stringify(
      await Promise.all(
        ['api_keys', 'people', 'invitations', 'code_host_connections'].map((table) =>
          storage.db
            .selectFrom(table as 'people')
            .selectAll()
            .execute(),
        ),
      ),
    );
    expect(after).toBe(before);
  });

  it("answers 404 for another organization's people and invitations", async () => {
    const outsider = await createPerson(storage.db, globex.orgId, { name: 'Gus', email: 'gus@globex.test', role: 'owner', passwordHash: null });
    const invitation = await createInvitation(storage.db, globex.orgId, { role: 'owner', note: 'Globex invitee', hours: 24 });
    for (const [url, fields] of [
      [`/dashboard/people/${outsider.id}/role`, { role: 'member' }],
      [`/dashboard/people/${outsider.id}/remove`, {}],
      [`/dashboard/people/invitations/${invitation.row.id}/withdraw`, {}],
    ] as [string, Record<string, string>][]) {
      const response = await post(url, operator, fields);
      expect(response.statusCode, url).toBe(404);
    }
    expect((await storage.db.selectFrom('people').select('role').where('id', '=', outsider.id).executeTakeFirstOrThrow()).role).toBe('owner');
    const people = await app.inject({ method: 'GET', url: '/dashboard/people', headers: { cookie: operator.cookie } });
    expect(people.body).not.toContain('gus@globex.test');
    expect(people.body).not.toContain('Globex invitee');
  });

  it('signs out everywhere: every session of the person ends, other people stay signed in', async () => {
    const first = await passwordSignIn('olga@acme.test', password);
    const second = await passwordSignIn('olga@acme.test', password);
    const one = await sessionOf(`quire_session=${cookieValue(first.headers['set-cookie'], 'quire_session')}`);
    const two = `quire_session=${cookieValue(second.headers['set-cookie'], 'quire_session')}`;
    const wes = await passwordSignIn('wes@acme.test', password);
    const wesCookie = `quire_session=${cookieValue(wes.headers['set-cookie'], 'quire_session')}`;
    const ended = await post('/dashboard/account/sign-out-everywhere', one, {});
    expect(ended.statusCode).toBe(200);
    for (const cookie of [one.cookie, two]) expect((await app.inject({ method: 'GET', url: '/dashboard/keys', headers: { cookie } })).statusCode).toBe(303);
    expect((await app.inject({ method: 'GET', url: '/dashboard/keys', headers: { cookie: wesCookie } })).statusCode).toBe(200);
    expect((await app.inject({ method: 'GET', url: '/dashboard/keys', headers: { cookie: operator.cookie } })).statusCode).toBe(200);
  });

  it('removing a person ends their sessions at once', async () => {
    const wes = await passwordSignIn('wes@acme.test', password);
    const cookie = `quire_session=${cookieValue(wes.headers['set-cookie'], 'quire_session')}`;
    const wesId = (await storage.db.selectFrom('people').select('id').where('email', '=', 'wes@acme.test').executeTakeFirstOrThrow()).id;
    expect((await post(`/dashboard/people/${wesId}/remove`, operator, {})).statusCode).toBe(200);
    expect((await app.inject({ method: 'GET', url: '/dashboard/keys', headers: { cookie } })).statusCode).toBe(303);
    expect((await passwordSignIn('wes@acme.test', password)).statusCode).toBe(400);
  });
});
