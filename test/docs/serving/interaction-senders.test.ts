import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { feedbackProjectKey } from '../../../src/analytics/feedback/feedback-query.ts';
import { interactionVisitors } from '../../../src/analytics/feedback/interaction-visitors.ts';
import type { AppContext } from '../../../src/http/context.ts';
import type { Storage } from '../../../src/storage/dialect.ts';
import { createTenant, type Tenant } from '../../support/app.ts';
import { testDatabases } from '../../support/storage.ts';
import { call, connect, fillIndex, startService } from './support.ts';

const chrome = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';
const today = () => ({ from: Date.now() - 60 * 60_000, to: Date.now() + 60_000 });

describe.each(testDatabases)('who searched and sent feedback through the discovery API and the MCP server, on $dialect', (database) => {
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

  const newSite = async () => {
    const tenant = await createTenant(storage, { project: { name: 'Acme', docsPublic: true, siteUrl: 'https://docs.acme.test', mcpName: 'acme' } });
    await fillIndex(storage, tenant.project.id);
    return tenant;
  };
  /** Searches and feedback are recorded in the background: the rows of the project, once there are `count`. */
  const senders = async (tenant: Tenant, table: 'analytics_searches' | 'analytics_feedback', count: number) => {
    let rows: { visitor_id: number | null; visitor_class: number | null }[] = [];
    await expect
      .poll(async () => {
        const key = await feedbackProjectKey(context.analytics, tenant.project.id);
        if (key === undefined) return 0;
        rows = await storage.db.selectFrom(table).select(['visitor_id', 'visitor_class']).where('project_key', '=', key).orderBy('at').execute();
        return rows.length;
      })
      .toBe(count);
    return rows.map((row) => ({ visitor_id: row.visitor_id === null ? null : Number(row.visitor_id), visitor_class: row.visitor_class }));
  };

  it('keeps a browser’s discovery search as a human sender', async () => {
    const tenant = await newSite();
    const search = () =>
      fetch(`${base}/discovery/v1/search/${tenant.project.id}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'user-agent': chrome },
        body: JSON.stringify({ query: 'Webhooks' }),
      });
    expect((await search()).status).toBe(200);
    expect((await search()).status).toBe(200);
    const rows = await senders(tenant, 'analytics_searches', 2);
    expect(rows.map((row) => row.visitor_class)).toEqual([0, 0]);
    expect(rows[0].visitor_id).not.toBeNull();
    const key = await feedbackProjectKey(context.analytics, tenant.project.id);
    expect(await interactionVisitors(context.analytics, key!, { range: today() })).toEqual({ human: 1, ai: 0, total: 1 });
  });

  it('counts an MCP search and feedback by the client the session names, as the same visitor as its page reads', async () => {
    const tenant = await newSite();
    const client = await connect(`${base}/sites/${tenant.project.id}/mcp`, 'claude-code', { 'user-agent': 'node' });
    await call(client, 'query_docs_filesystem_acme', { command: 'cat guides/setup.mdx' });
    await call(client, 'search_acme', { query: 'zebra crossing' });
    expect((await call(client, 'submit_feedback_acme', { path: 'guides/setup.mdx', description: 'No zebra crossing.' })).isError).toBe(false);
    await client.close();
    const [search] = await senders(tenant, 'analytics_searches', 1);
    const [feedback] = await senders(tenant, 'analytics_feedback', 1);
    expect(search).toEqual({ visitor_id: expect.any(Number), visitor_class: 1 });
    expect(feedback).toEqual(search);
    await expect
      .poll(async () => (await storage.db.selectFrom('analytics_events').select('visitor_id').execute()).map((row) => Number(row.visitor_id)))
      .toContain(search.visitor_id);
    const key = await feedbackProjectKey(context.analytics, tenant.project.id);
    expect(await interactionVisitors(context.analytics, key!, { range: today() })).toEqual({ human: 0, ai: 1, total: 1 });
  });
});
