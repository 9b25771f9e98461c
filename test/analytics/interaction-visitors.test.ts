import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { updateProject } from '../../src/accounts/projects.ts';
import { recordInteractions } from '../../src/analytics/capture/record.ts';
import { feedbackProjectKey } from '../../src/analytics/feedback/feedback-query.ts';
import { interactionVisitors, type InteractionVisitorsRequest } from '../../src/analytics/feedback/interaction-visitors.ts';
import type { AppContext } from '../../src/http/context.ts';
import type { Storage } from '../../src/storage/dialect.ts';
import { createTenant, testApp, testContext, type Tenant } from '../support/app.ts';
import { testDatabases } from '../support/storage.ts';

const chrome = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';
const claudeBot = 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ClaudeBot/1.0; +claudebot@anthropic.com)';
const curl = 'curl/8.5.0';
const march = { from: Date.UTC(2026, 2, 1), to: Date.UTC(2026, 2, 8) };
const at = '2026-03-02T10:00:00Z';
/** An address no other event of these tests carries, to look for in the stored rows. */
const address = '192.0.2.201';

/** The tables of the test database, by dialect. */
const tableLists = {
  sqlite: sql<{ name: string }>`select name from sqlite_master where type = 'table'`,
  postgres: sql<{ name: string }>`select table_name as name from information_schema.tables where table_schema = current_schema()`,
};

describe.each(testDatabases)('the senders of searches and feedback on $dialect', (database) => {
  let storage: Storage;
  let context: AppContext;
  let app: FastifyInstance;

  beforeAll(async () => {
    storage = await database.open();
    context = testContext(storage, { config: { analyticsRateLimit: 10_000 } });
    app = await testApp(context);
  });
  afterAll(async () => {
    await app.close();
    await storage.close();
  });

  const post = async (tenant: Tenant, events: unknown[]) => {
    const response = await app.inject({ method: 'POST', url: `/v1/analytics/${tenant.project.id}/events`, headers: tenant.auth, payload: { events } });
    expect(response.statusCode).toBe(202);
    return response.json() as { accepted: number; rejected: number; errors: { index: number; message: string }[] };
  };
  const visitors = async (tenant: Tenant, request: Partial<InteractionVisitorsRequest> = {}) => {
    const key = await feedbackProjectKey(context.analytics, tenant.project.id);
    return interactionVisitors(context.analytics, key!, { range: march, ...request });
  };
  const projectRows = async (table: 'analytics_searches' | 'analytics_feedback', tenant: Tenant) => {
    const key = await feedbackProjectKey(context.analytics, tenant.project.id);
    const rows = await storage.db.selectFrom(table).select(['visitor_id', 'visitor_class']).where('project_key', '=', key!).orderBy('at').execute();
    return rows.map((row) => ({ visitor_id: row.visitor_id === null ? null : Number(row.visitor_id), visitor_class: row.visitor_class }));
  };
  const eventVisitors = (tenant: Tenant) =>
    storage.db
      .selectFrom('analytics_events')
      .innerJoin('analytics_projects', 'analytics_projects.project_key', 'analytics_events.project_key')
      .select('visitor_id')
      .where('analytics_projects.project_id', '=', tenant.project.id)
      .execute()
      .then((rows) => rows.map((row) => Number(row.visitor_id)));

  /** Every row of every table as text: a raw IP must appear nowhere. */
  const everything = async () => {
    const { rows: tables } = await tableLists[database.dialect].execute(storage.db);
    const texts: string[] = [];
    for (const { name } of tables) {
      const { rows } = await sql<Record<string, unknown>>`select * from ${sql.table(name)}`.execute(storage.db);
      texts.push(JSON.stringify(rows, (_key, value) => (value instanceof Uint8Array ? Buffer.from(value).toString('latin1') : value)));
    }
    return texts.join('\n');
  };

  it('keeps a search’s sender as the view’s visitor id, never the IP, and counts the same IP and user agent once', async () => {
    const tenant = await createTenant(storage);
    const body = await post(tenant, [
      { timestamp: at, path: '/guides/setup', userAgent: chrome, ip: address },
      { kind: 'search', timestamp: at, query: 'install windows', hits: 0, userAgent: chrome, ip: address },
      { kind: 'search', timestamp: '2026-03-03T10:00:00Z', query: 'Install  Windows', hits: 0, userAgent: chrome, ip: address },
      { kind: 'feedback', timestamp: at, path: '/guides/setup', source: 'contextual', helpful: false, comment: 'No Windows', userAgent: chrome, ip: address },
    ]);
    expect(body).toMatchObject({ accepted: 4, rejected: 0 });
    const [viewer] = await eventVisitors(tenant);
    expect(await projectRows('analytics_searches', tenant)).toEqual([
      { visitor_id: viewer, visitor_class: 0 },
      { visitor_id: viewer, visitor_class: 0 },
    ]);
    expect(await projectRows('analytics_feedback', tenant)).toEqual([{ visitor_id: viewer, visitor_class: 0 }]);
    expect(await visitors(tenant)).toEqual({ human: 1, ai: 0, total: 1 });
    const stored = await everything();
    expect(stored).toContain('install windows');
    expect(stored).not.toContain(address);
  });

  it('counts a ClaudeBot search as AI, a library as neither, and distinct senders per query, feedback item and range', async () => {
    const tenant = await createTenant(storage);
    await post(tenant, [
      { kind: 'search', timestamp: at, query: 'webhooks retry', hits: 0, userAgent: claudeBot, ip: '216.73.216.4' },
      { kind: 'search', timestamp: at, query: 'webhooks retry', hits: 0, userAgent: chrome, ip: '203.0.113.7' },
      { kind: 'search', timestamp: at, query: 'webhooks retry', hits: 2, userAgent: chrome, ip: '203.0.113.8' },
      { kind: 'search', timestamp: at, query: 'webhooks retry', hits: 0, userAgent: curl, ip: '203.0.113.9' },
      { kind: 'search', timestamp: at, query: 'rate limits', hits: 0, visitorId: 'tracker-1' },
      { kind: 'search', timestamp: '2026-04-01T10:00:00Z', query: 'webhooks retry', hits: 0, userAgent: chrome, ip: '203.0.113.10' },
      {
        kind: 'feedback',
        timestamp: at,
        path: '/api/webhooks',
        source: 'agent',
        helpful: false,
        comment: 'No retries',
        userAgent: claudeBot,
        ip: '216.73.216.4',
      },
    ]);
    expect((await projectRows('analytics_searches', tenant)).map((row) => row.visitor_class)).toEqual([1, 0, 0, 2, null, 0]);
    // The tracker's id names a visitor with no user agent: counted in the total only.
    expect(await visitors(tenant)).toEqual({ human: 2, ai: 1, total: 4 });
    expect(await visitors(tenant, { queries: ['webhooks retry'], feedbackIds: [] })).toEqual({ human: 2, ai: 1, total: 3 });
    expect(await visitors(tenant, { queries: ['webhooks retry'], noHitsOnly: true, feedbackIds: [] })).toEqual({ human: 1, ai: 1, total: 2 });
    const [item] = await storage.db.selectFrom('analytics_feedback').select('id').where('comment', '=', 'No retries').execute();
    expect(await visitors(tenant, { queries: [], feedbackIds: [item.id] })).toEqual({ human: 0, ai: 1, total: 1 });
    expect(await visitors(tenant, { queries: [], feedbackIds: [] })).toEqual({ human: 0, ai: 0, total: 0 });
    expect(await visitors(tenant, { range: { from: Date.UTC(2026, 3, 1), to: Date.UTC(2026, 3, 2) } })).toEqual({ human: 1, ai: 0, total: 1 });
  });

  it('stores events without a sender as before, and refuses a sender’s fields as a view’s', async () => {
    const tenant = await createTenant(storage);
    const body = await post(tenant, [
      { kind: 'search', timestamp: at, query: 'setup', hits: 3 },
      { kind: 'feedback', timestamp: at, path: '/guides/setup', source: 'thumbs_only', helpful: true },
      { kind: 'search', query: 'setup', hits: 1, ip: 'not-an-ip' },
      { kind: 'feedback', path: '/x', source: 'thumbs_only', helpful: true, visitorId: '' },
    ]);
    expect(body).toMatchObject({ accepted: 2, rejected: 2 });
    expect(body.errors[0].message).toMatch(/ip "not-an-ip" is not an IPv4 or IPv6 address/);
    expect(body.errors[1].message).toMatch(/visitorId must not be empty/);
    expect(await projectRows('analytics_searches', tenant)).toEqual([{ visitor_id: null, visitor_class: null }]);
    expect(await projectRows('analytics_feedback', tenant)).toEqual([{ visitor_id: null, visitor_class: null }]);
    expect(await visitors(tenant)).toEqual({ human: 0, ai: 0, total: 0 });
  });

  it('takes the beacon’s sender from the request, and MCP searches by the client they name', async () => {
    const tenant = await createTenant(storage);
    await updateProject(storage.db, tenant.project.id, { trackerDomains: ['docs.example.com'] });
    const beacon = await app.inject({
      method: 'POST',
      url: '/v1/collect',
      remoteAddress: '198.51.100.90',
      headers: { 'content-type': 'text/plain', origin: 'https://docs.example.com', 'user-agent': chrome },
      payload: JSON.stringify({
        project: tenant.project.id,
        url: 'https://docs.example.com/a',
        visitorId: 'reader-1',
        kind: 'search',
        data: { query: 'sso', hits: 0, timestamp: at, userAgent: claudeBot },
      }),
    });
    expect(beacon.statusCode).toBe(204);
    const sender = { userAgent: 'node', ip: '203.0.113.50', via: 'mcp' as const, client: { name: 'claude-code', version: '2.1.0' } };
    expect(await recordInteractions(context.analytics, tenant.project, [{ kind: 'search', query: 'sso', hits: 0, timestamp: at }], sender)).toBe(1);
    expect((await projectRows('analytics_searches', tenant)).map((row) => row.visitor_class)).toEqual([0, 1]);
    expect(await visitors(tenant, { queries: ['sso'] })).toEqual({ human: 1, ai: 1, total: 2 });
  });
});
