import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Storage } from '../../src/storage/dialect.ts';
import { createTenant, testApp, testContext, type Tenant } from '../support/app.ts';
import { testDatabases } from '../support/storage.ts';
import { form, signIn, type SignedIn } from './session.ts';

describe.each(testDatabases)('dashboard key IP allowlists on $dialect', (database) => {
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
    await app?.close();
    await storage?.close();
  });

  const generate = (fields: Record<string, string>) =>
    app.inject({
      method: 'POST',
      url: '/dashboard/keys',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: session.cookie },
      payload: form({ scopes: 'read', csrf: session.csrf, ...fields }),
    });
  const stored = (name: string) =>
    storage.db.selectFrom('api_keys').select('allowed_ips').where('org_id', '=', tenant.orgId).where('name', '=', name).execute();

  it('offers the allowlist on the generate form and says what an empty one means', async () => {
    const page = await app.inject({ method: 'GET', url: '/dashboard/keys', headers: { cookie: session.cookie } });
    expect(page.body).toContain('<label for="key-ips">Allowed IP addresses (optional)</label>');
    expect(page.body).toContain('name="allowedIps"');
    expect(page.body).toMatch(/Leave empty for a key that works from any address/);
  });

  it('generates a key limited to the given addresses and ranges, and lists them with the key', async () => {
    const response = await generate({ name: 'office only', allowedIps: '203.0.113.0/24, 2001:db8::/32 ::ffff:198.51.100.7' });
    expect(response.statusCode).toBe(200);
    expect(response.body).toContain('Your new key');
    expect(await stored('office only')).toEqual([{ allowed_ips: '203.0.113.0/24,2001:db8::/32,198.51.100.7' }]);
    const row = /<tr><td>office only<\/td>.*?<\/tr>/s.exec(response.body)?.[0];
    expect(row).toContain('203.0.113.0/24, 2001:db8::/32, 198.51.100.7');

    await generate({ name: 'anywhere', allowedIps: '' });
    expect(await stored('anywhere')).toEqual([{ allowed_ips: null }]);
    const page = await app.inject({ method: 'GET', url: '/dashboard/keys', headers: { cookie: session.cookie } });
    expect(/<tr><td>anywhere<\/td>.*?<\/tr>/s.exec(page.body)?.[0]).toContain('Any address');
  });

  it('refuses an entry that is not an address or range, says which, and generates nothing', async () => {
    for (const [entry, message] of [
      ['203.0.113.0/24, office', '&quot;office&quot; is not an IP address or CIDR range'],
      ['203.0.113.0/40', 'prefix length is 0 to 32'],
    ]) {
      const response = await generate({ name: `bad ${entry}`, allowedIps: entry });
      expect(response.statusCode).toBe(400);
      expect(response.body).toContain(message);
      expect(response.body).not.toContain('Your new key');
      expect(await stored(`bad ${entry}`)).toEqual([]);
    }
  });
});
