import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prepareAll, storeEvents } from '../../src/analytics/ingest/ingest.ts';
import type { AppContext } from '../../src/http/context.ts';
import type { Storage } from '../../src/storage/dialect.ts';
import { createTenant, testApp, testContext, type Tenant } from '../support/app.ts';
import { testDatabases } from '../support/storage.ts';

describe.each(testDatabases)('shared analytics links on $dialect', (database) => {
  let storage: Storage;
  let context: AppContext;
  let app: FastifyInstance;
  let owner: Tenant;
  let other: Tenant;

  beforeAll(async () => {
    storage = await database.open();
    context = testContext(storage);
    app = await testApp(context);
    owner = await createTenant(storage);
    other = await createTenant(storage);
    const now = Date.now();
    for (const [tenant, path] of [
      [owner, '/owner-secret-page'],
      [other, '/other-secret-page'],
    ] as const) {
      const prepared = prepareAll([
        { timestamp: now - 60_000, path, visitorId: 'reader', userAgent: 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0' },
      ]);
      await storeEvents(context.analytics, tenant.project, prepared.events);
    }
  });
  afterAll(async () => {
    await app?.close();
    await storage?.close();
  });

  const create = async (tenant: Tenant, projectId = tenant.project.id) =>
    app.inject({ method: 'POST', url: `/v1/analytics/${projectId}/shared-links`, headers: tenant.auth });
  const open = (url: string) => app.inject({ method: 'GET', url });

  it('shows the project’s analytics page without sign-in, read-only, and nothing of another project', async () => {
    const created = await create(owner);
    expect(created.statusCode).toBe(201);
    const link = created.json();
    expect(link.url).toMatch(/^\/share\/[A-Za-z0-9_-]{32}$/);
    const page = await open(link.url);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('/owner-secret-page');
    expect(page.body).not.toContain('/other-secret-page');
    // Read-only: no export, no project tabs or settings, no setup instructions.
    expect(page.body).not.toContain('visitors.csv');
    expect(page.body).not.toContain(`/dashboard/projects/${owner.project.id}`);
    expect(page.headers['cache-control']).toBe('no-store');
    // Its range links stay on the shared page.
    expect(page.body).toContain(`href="${link.url}?from=`);
    const listed = await app.inject({ method: 'GET', url: `/v1/analytics/${owner.project.id}/shared-links`, headers: owner.auth });
    expect(listed.json().sharedLinks).toEqual([{ id: link.id, createdAt: link.createdAt }]);
    expect(listed.body).not.toContain(link.url.slice('/share/'.length));
  });

  it('reaches nothing else: not the dashboard, not the API, not another project, not a guessed token', async () => {
    const link = (await create(owner)).json();
    const token = link.url.slice('/share/'.length);
    for (const url of [
      `/share/${token}/visitors.csv`,
      `/share/${token}/../projects/${other.project.id}/analytics`,
      `/share/${token}?projectId=${other.project.id}`,
    ]) {
      const response = await open(url);
      if (response.statusCode === 200) expect(response.body, url).not.toContain('/other-secret-page');
      else expect(response.statusCode, url).toBe(404);
    }
    // The token is no API credential and opens no dashboard page.
    const api = await app.inject({ method: 'GET', url: `/v1/analytics/${owner.project.id}/visitors`, headers: { authorization: `Bearer ${token}` } });
    expect(api.statusCode).toBe(401);
    const dashboard = await app.inject({ method: 'GET', url: `/dashboard/projects/${owner.project.id}/analytics`, headers: { cookie: `session=${token}` } });
    expect(dashboard.statusCode).not.toBe(200);
    // Guesses: another token of the right shape, the wrong shape, the link's id, a near miss.
    const nearMiss = `${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`;
    for (const guess of ['A'.repeat(32), 'short', link.id, nearMiss, `${token}x`, encodeURIComponent("' or 1=1 --")]) {
      const response = await open(`/share/${guess}`);
      expect(response.statusCode, guess).toBe(404);
      expect(response.body).not.toContain('/owner-secret-page');
    }
  });

  it('is created and revoked only by the project’s organization with scope write; another organization’s project is not found', async () => {
    expect((await create(other, owner.project.id)).statusCode).toBe(404);
    const reader = await createTenant(storage, { scopes: ['read'] });
    expect((await create(reader)).statusCode).toBe(403);
    const link = (await create(owner)).json();
    const foreign = await app.inject({ method: 'DELETE', url: `/v1/analytics/${other.project.id}/shared-links/${link.id}`, headers: other.auth });
    expect(foreign.statusCode).toBe(404);
    const listedByOther = await app.inject({ method: 'GET', url: `/v1/analytics/${owner.project.id}/shared-links`, headers: other.auth });
    expect(listedByOther.statusCode).toBe(404);
    expect((await open(link.url)).statusCode).toBe(200);
  });

  it('stops working at once when revoked, mid-session included', async () => {
    const link = (await create(owner)).json();
    expect((await open(link.url)).statusCode).toBe(200);
    expect((await open(`${link.url}?from=2026-01-01&to=2026-01-31`)).statusCode).toBe(200);
    const revoked = await app.inject({ method: 'DELETE', url: `/v1/analytics/${owner.project.id}/shared-links/${link.id}`, headers: owner.auth });
    expect(revoked.statusCode).toBe(204);
    for (const url of [link.url, `${link.url}?from=2026-01-01&to=2026-01-31`]) {
      const response = await open(url);
      expect(response.statusCode).toBe(404);
      expect(response.body).not.toContain('/owner-secret-page');
    }
    const again = await app.inject({ method: 'DELETE', url: `/v1/analytics/${owner.project.id}/shared-links/${link.id}`, headers: owner.auth });
    expect(again.statusCode).toBe(404);
    const listed = await app.inject({ method: 'GET', url: `/v1/analytics/${owner.project.id}/shared-links`, headers: owner.auth });
    expect(listed.json().sharedLinks.map((entry: { id: string }) => entry.id)).not.toContain(link.id);
  });
  it('refuses an address that guessed too often, before looking anything up, and caps the pages a project’s links show', async () => {
    const limited = testContext(storage, { config: { signInRateLimit: 3, sharedLinkRateLimit: 4, trustedProxies: ['127.0.0.1'] } });
    const proxied = await testApp(limited);
    try {
      // A project of its own: the pages earlier tests opened count in the same database.
      const fresh = await createTenant(storage);
      const link = (await create(fresh)).json();
      const from = (address: string, url: string) => proxied.inject({ method: 'GET', url, headers: { 'x-forwarded-for': address } });
      // Three wrong guesses use up the address's budget; then even the right link is refused, without its page.
      for (let guess = 0; guess < 3; guess++) expect((await from('198.51.100.7', `/share/${'G'.repeat(31)}${guess}`)).statusCode).toBe(404);
      const refused = await from('198.51.100.7', link.url);
      expect(refused.statusCode).toBe(429);
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      expect(refused.body).toContain('Too many unknown shared links');
      expect((await from('198.51.100.7', `${link.url}/realtime`)).statusCode).toBe(429);
      // The same /64 of IPv6 is one client; another address is not affected.
      for (let guess = 0; guess < 3; guess++) expect((await from('2001:db8:1:2::a', `/share/${'H'.repeat(31)}${guess}`)).statusCode).toBe(404);
      expect((await from('2001:db8:1:2::b', link.url)).statusCode).toBe(429);
      expect((await from('203.0.113.9', link.url)).statusCode).toBe(200);
      // Good links do not use up the guess budget; the project's pages do use up theirs, whichever link and address.
      const second = (await create(fresh)).json();
      expect((await from('203.0.113.10', second.url)).statusCode).toBe(200);
      expect((await from('203.0.113.11', link.url)).statusCode).toBe(200);
      expect((await from('203.0.113.12', second.url)).statusCode).toBe(200);
      const capped = await from('203.0.113.13', link.url);
      expect(capped.statusCode).toBe(429);
      expect(capped.body).not.toContain('Share this page');
      expect(capped.body).toContain('shown 4 pages');
      // The live count is not a page, and another organization's links keep their own budget.
      expect((await from('203.0.113.13', `${link.url}/realtime`)).statusCode).toBe(200);
      const foreign = (await create(other)).json();
      expect((await from('203.0.113.14', foreign.url)).statusCode).toBe(200);
      // Nothing of this touched the organization's API budget.
      const api = await proxied.inject({ method: 'GET', url: `/v1/analytics/${fresh.project.id}/visitors`, headers: fresh.auth });
      expect(api.statusCode).toBe(200);
    } finally {
      await proxied.close();
    }
  });
});
