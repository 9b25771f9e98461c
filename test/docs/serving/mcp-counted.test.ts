import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey } from '../../../src/accounts/keys.ts';
import { foldPending } from '../../../src/analytics/fold/fold.ts';
import { existingProjectKey } from '../../../src/analytics/ingest/dense-ids.ts';
import type { AppContext } from '../../../src/http/context.ts';
import type { Storage } from '../../../src/storage/dialect.ts';
import { createTenant, type Tenant } from '../../support/app.ts';
import { testDatabases } from '../../support/storage.ts';
import { call, claudeBot, connect, fillIndex, startService } from './support.ts';

describe.each(testDatabases)('the search MCP server on the site surface, and what the analytics sees, on $dialect', (database) => {
  let storage: Storage;
  let app: FastifyInstance;
  let base: string;
  let context: AppContext;

  beforeAll(async () => {
    storage = await database.open();
    ({ app, base, context } = await startService(storage));
  });
  afterAll(async () => {
    await app.close();
    await storage.close();
  });

  const newSite = async (docsPublic: boolean) => {
    const tenant = await createTenant(storage, { project: { name: 'Acme', docsPublic, siteUrl: 'https://docs.acme.test', mcpName: 'acme' } });
    await fillIndex(storage, tenant.project.id);
    return tenant;
  };
  const mcpUrl = (tenant: Tenant) => `${base}/sites/${tenant.project.id}/mcp`;
  const analytics = async (tenant: Tenant, operation: string) => {
    const key = await existingProjectKey(storage.db, context.analytics.ids, tenant.project.id);
    if (key !== undefined) await foldPending(storage, key);
    const response = await fetch(`${base}/v1/analytics/${tenant.project.id}/${operation}`, { headers: tenant.auth });
    return response.json() as Promise<Record<string, unknown>>;
  };

  it('serves the tools of the project’s MCP name through the SDK client: search, read, feedback', async () => {
    const tenant = await newSite(true);
    const client = await connect(mcpUrl(tenant), 'claude-code');
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['search_acme', 'query_docs_filesystem_acme', 'submit_feedback_acme']);
    const search = await call(client, 'search_acme', { query: 'webhooks' });
    expect(search.text).toMatch(/^# Webhooks\nURL: https:\/\/docs\.acme\.test\/api\/webhooks\nPath: api\/webhooks\.mdx/);
    expect(await call(client, 'query_docs_filesystem_acme', { command: 'cat guides/setup.mdx' })).toEqual({
      text: '# Setup\n\nInstall the CLI, then configure webhooks.\n',
      isError: false,
    });
    expect((await call(client, 'submit_feedback_acme', { path: 'guides/setup.mdx', description: 'The CLI install step misses Windows.' })).isError).toBe(false);
    await client.close();
    const feedback = (await analytics(tenant, 'feedback')) as { feedback: object[] };
    expect(feedback.feedback).toEqual([
      expect.objectContaining({ path: '/guides/setup', source: 'agent', helpful: false, comment: 'The CLI install step misses Windows.' }),
    ]);
  });

  it('needs a key when the docs are not public, as Bearer', async () => {
    const tenant = await newSite(false);
    await expect(connect(mcpUrl(tenant), 'claude-code')).rejects.toThrow();
    const { key } = await createKey(storage.db, tenant.orgId, { kind: 'assistant', projectIds: [tenant.project.id] });
    const client = await connect(mcpUrl(tenant), 'claude-code', { authorization: `Bearer ${key}` });
    expect((await call(client, 'search_acme', { query: 'setup' })).isError).toBe(false);
    await client.close();
  });

  it('counts a ClaudeBot .md fetch and an MCP cat by claude-code as AI views, marks the MCP ones, and lists an MCP search without hits', async () => {
    const tenant = await newSite(true);
    const fetched = await fetch(`${base}/sites/${tenant.project.id}/guides/setup.md`, { headers: { 'user-agent': claudeBot } });
    expect(fetched.status).toBe(200);
    const client = await connect(mcpUrl(tenant), 'claude-code');
    await call(client, 'query_docs_filesystem_acme', { command: 'cat guides/setup.mdx' });
    await call(client, 'query_docs_filesystem_acme', { command: 'ls guides' });
    expect((await call(client, 'search_acme', { query: 'zebra crossing' })).text).toContain('No sections match');
    await client.close();
    const unknown = await connect(mcpUrl(tenant), 'home-made-agent');
    await call(unknown, 'query_docs_filesystem_acme', { command: 'head -n 1 api/webhooks.mdx' });
    await unknown.close();

    await expect
      .poll(async () => ((await analytics(tenant, 'visitors')) as { visitors: object[] }).visitors)
      .toEqual([
        { path: '/guides/setup', human: 0, ai: 2, total: 2 },
        { path: '/api/webhooks', human: 0, ai: 1, total: 1 },
      ]);
    const agents = (await analytics(tenant, 'agents')) as { agents: object[] };
    expect(agents.agents).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ agent: 'ClaudeBot', views: 1, mcpViews: 0 }),
        expect.objectContaining({ agent: 'Claude Code', category: 'coding', views: 1, mcpViews: 1 }),
        expect.objectContaining({ agent: 'Other MCP client', category: 'other', views: 1, mcpViews: 1 }),
      ]),
    );
    expect(agents.agents).toHaveLength(3);
    await expect
      .poll(async () => ((await analytics(tenant, 'searches')) as { searches: object[] }).searches)
      .toEqual([expect.objectContaining({ searchQuery: 'zebra crossing', hits: 0 })]);
  });

  it('counts a discovery search with its hits', async () => {
    const tenant = await newSite(true);
    await fetch(`${base}/discovery/v1/search/${tenant.project.id}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'Webhooks' }),
    });
    await expect
      .poll(async () => ((await analytics(tenant, 'searches')) as { searches: object[] }).searches)
      .toEqual([expect.objectContaining({ searchQuery: 'webhooks', hits: 3 })]);
  });
});
