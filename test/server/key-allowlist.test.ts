import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey } from '../../src/accounts/keys.ts';
import { AddressRangeError, parseAddressRanges } from '../../src/lib/ip-ranges.ts';
import type { Storage } from '../../src/storage/dialect.ts';
import { createTenant, testApp, testContext, type Tenant } from '../support/app.ts';
import { testDatabases } from '../support/storage.ts';

/** Listens on 127.0.0.1, so every request of the test really comes from 127.0.0.1. */
async function listening(app: FastifyInstance): Promise<string> {
  await app.listen({ port: 0, host: '127.0.0.1' });
  return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
}

describe.each(testDatabases)('API key IP allowlists on $dialect', (database) => {
  let storage: Storage;
  let direct: FastifyInstance;
  let proxied: FastifyInstance;
  let directUrl: string;
  let proxiedUrl: string;
  let tenant: Tenant;
  let elsewhere: { id: string; key: string };

  beforeAll(async () => {
    storage = await database.open();
    tenant = await createTenant(storage);
    // No trusted proxy: X-Forwarded-For is whatever the client chose, and must be ignored.
    direct = await testApp(testContext(storage));
    // Behind a reverse proxy on 127.0.0.1: the proxy's X-Forwarded-For names the client.
    proxied = await testApp(testContext(storage, { config: { trustedProxies: ['127.0.0.1'] } }));
    [directUrl, proxiedUrl] = await Promise.all([listening(direct), listening(proxied)]);
    const { key, row } = await createKey(storage.db, tenant.orgId, { allowedIps: ['203.0.113.0/24', '2001:db8::/32'] });
    elsewhere = { id: row.id, key };
  });
  afterAll(async () => {
    await Promise.all([direct?.close(), proxied?.close()]);
    await storage?.close();
  });

  const listJobs = (base: string, key: string, forwardedFor?: string) =>
    fetch(`${base}/v2/agent/${tenant.project.id}/jobs`, {
      headers: { authorization: `Bearer ${key}`, ...(forwardedFor ? { 'x-forwarded-for': forwardedFor } : {}) },
    });
  const errorOf = async (response: Response) => (await response.json()) as { code: string; error: string };
  const lastUsed = async (id: string) =>
    (await storage.db.selectFrom('api_keys').select('last_used_at').where('id', '=', id).executeTakeFirstOrThrow()).last_used_at;

  it('serves a key from an address on its allowlist', async () => {
    const { key, row } = await createKey(storage.db, tenant.orgId, { allowedIps: ['127.0.0.1/32'] });
    const response = await listJobs(directUrl, key);
    expect(response.status).toBe(200);
    expect(await lastUsed(row.id)).not.toBeNull();
  });

  it('refuses a key from an address off its allowlist with 403, names the address, and leaves last_used_at alone', async () => {
    const response = await listJobs(directUrl, elsewhere.key);
    expect(response.status).toBe(403);
    const body = await errorOf(response);
    expect(body.code).toBe('forbidden');
    expect(body.error).toContain('127.0.0.1');
    expect(body.error).toMatch(/--allow-ips/);
    expect(body.error).toMatch(/QUIRE_TRUSTED_PROXIES/);
    expect(response.headers.get('www-authenticate')).toBeNull();
    expect(await lastUsed(elsewhere.id)).toBeNull();
  });

  it('ignores an X-Forwarded-For that a peer who is not a trusted proxy forged', async () => {
    for (const forged of ['203.0.113.9', '127.0.0.2, 203.0.113.9', '2001:db8::1']) {
      const response = await listJobs(directUrl, elsewhere.key, forged);
      expect(response.status, forged).toBe(403);
      expect((await errorOf(response)).error).toContain('from 127.0.0.1');
    }
    expect(await lastUsed(elsewhere.id)).toBeNull();
  });

  it('takes the client address from a trusted proxy’s X-Forwarded-For, IPv4, IPv6 and IPv4-mapped', async () => {
    for (const client of ['203.0.113.9', '2001:db8:ffff::1', '::ffff:203.0.113.200', '198.51.100.1, 203.0.113.9']) {
      expect((await listJobs(proxiedUrl, elsewhere.key, client)).status, client).toBe(200);
    }
    for (const client of ['198.51.100.1', '2001:db9::1', '203.0.113.9, 198.51.100.1']) {
      const response = await listJobs(proxiedUrl, elsewhere.key, client);
      expect(response.status, client).toBe(403);
      expect((await errorOf(response)).error).toContain(client.split(', ').at(-1));
    }
  });

  it('refuses invalid allowlist entries at creation and stores nothing', async () => {
    const count = async () => (await storage.db.selectFrom('api_keys').select('id').where('org_id', '=', tenant.orgId).execute()).length;
    const before = await count();
    for (const entry of ['203.0.113.0/33', '2001:db8::/129', 'office', '10.0.0.0/8/8', '10.0.0.0/-1', '']) {
      await expect(createKey(storage.db, tenant.orgId, { allowedIps: [entry] }), entry).rejects.toThrow(AddressRangeError);
    }
    await expect(createKey(storage.db, tenant.orgId, { allowedIps: ['203.0.113.0/33'] })).rejects.toThrow(/0 to 32/);
    for (const covering of ['::ffff:203.0.113.0/24', '::ffff:cb00:7100/24', '::/80', '::/0']) {
      await expect(createKey(storage.db, tenant.orgId, { allowedIps: [covering] }), covering).rejects.toThrow(/covers the IPv4-mapped addresses/);
    }
    expect(await count()).toBe(before);
  });

  it('reads an IPv4-mapped range as the IPv4 range it is, in an allowlist and in the trusted proxies', async () => {
    for (const mapped of ['::ffff:203.0.113.0/120', '::ffff:cb00:7100/120']) {
      const { key } = await createKey(storage.db, tenant.orgId, { allowedIps: [mapped] });
      expect((await listJobs(directUrl, key)).status, mapped).toBe(403);
      expect((await listJobs(proxiedUrl, key, '203.0.113.77')).status, mapped).toBe(200);
      expect((await listJobs(proxiedUrl, key, '198.51.100.1')).status, mapped).toBe(403);
    }
    expect(() => parseAddressRanges('::ffff:10.0.0.0/8')).toThrow(/covers the IPv4-mapped addresses/);
    // Trusted as a proxy: only 10.0.0.0/8, written mapped; a peer on 127.0.0.1 is not one, so its X-Forwarded-For is ignored.
    const mapped = await testApp(testContext(storage, { config: { trustedProxies: parseAddressRanges('::ffff:10.0.0.0/104') } }));
    try {
      const response = await listJobs(await listening(mapped), elsewhere.key, '203.0.113.5');
      expect(response.status).toBe(403);
      expect((await errorOf(response)).error).toContain('from 127.0.0.1');
    } finally {
      await mapped.close();
    }
  });
});
