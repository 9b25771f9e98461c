import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Storage } from '../../src/storage/dialect.ts';
import { createTenant, testApp, testContext, type Tenant } from '../support/app.ts';
import { testDatabases } from '../support/storage.ts';
import { form, signIn, type SignedIn } from './session.ts';

describe.each(testDatabases)('dashboard: connecting an MCP client to the admin MCP server on $dialect', (database) => {
  let storage: Storage;
  let app: FastifyInstance;
  let tenant: Tenant;
  let session: SignedIn;

  beforeAll(async () => {
    storage = await database.open();
    app = await testApp(testContext(storage, { config: { publicUrl: 'https://quire.example.test' } }));
    tenant = await createTenant(storage);
    session = await signIn(app, storage, tenant.orgId);
  });
  afterAll(async () => {
    await app?.close();
    await storage?.close();
  });

  it('shows Claude Code, Cursor and Codex configuration with a placeholder, and fills in a new key only in the answer that created it', async () => {
    const page = await app.inject({ method: 'GET', url: '/dashboard/keys', headers: { cookie: session.cookie } });
    expect(page.body).toContain(
      'claude mcp add --transport http quire https://quire.example.test/mcp --header &quot;Authorization: Bearer YOUR_QUIRE_KEY&quot;',
    );
    expect(page.body).toContain('&quot;mcpServers&quot;');
    expect(page.body).toContain('[mcp_servers.quire]');

    const created = await app.inject({
      method: 'POST',
      url: '/dashboard/keys',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: session.cookie },
      payload: form({ name: 'my agent', scopes: 'read', csrf: session.csrf }),
    });
    expect(created.statusCode).toBe(200);
    const key = /quire_[A-Za-z0-9]{32,}/.exec(created.body)?.[0];
    expect(key).toBeDefined();
    expect(created.body).toContain(`claude mcp add --transport http quire https://quire.example.test/mcp --header &quot;Authorization: Bearer ${key}&quot;`);
    expect(created.body).toContain(`http_headers = { &quot;Authorization&quot; = &quot;Bearer ${key}&quot; }`);

    const again = await app.inject({ method: 'GET', url: '/dashboard/keys', headers: { cookie: session.cookie } });
    expect(again.body).not.toContain(key!);
  });
});
