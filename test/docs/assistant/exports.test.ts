import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey } from '../../../src/accounts/keys.ts';
import type { Storage } from '../../../src/storage/dialect.ts';
import { createTenant, type Tenant } from '../../support/app.ts';
import { startOpenAiServer, type OpenAiServer } from '../../support/openai-server.ts';
import { testDatabases } from '../../support/storage.ts';
import { fillIndex, startService } from '../serving/support.ts';
import { assistantScript } from './support.ts';

/** Mintlify's published schemas of the three exports (see the fixture's `origin`). */
const published = JSON.parse(readFileSync('test/fixtures/mintlify-assistant-analytics.json', 'utf8')) as { schemas: Record<string, object> };
const ajv = new Ajv2020({ strict: false });
const conforms = (schema: string, value: unknown) => {
  const validate = ajv.compile(published.schemas[schema]);
  return validate(value) ? null : validate.errors;
};

describe.each(testDatabases)('the assistant exports on $dialect', (database) => {
  let storage: Storage;
  let model: OpenAiServer;
  let app: FastifyInstance;
  let base: string;
  let tenant: Tenant;
  let stranger: Tenant;
  let key: string;
  const threads: string[] = [];

  beforeAll(async () => {
    storage = await database.open();
    model = await startOpenAiServer(assistantScript);
    ({ app, base } = await startService(storage, { model: 'openai-compatible:test-model', openaiBaseUrl: model.url }));
    tenant = await createTenant(storage, { project: { siteUrl: 'https://docs.acme.test' } });
    stranger = await createTenant(storage);
    await fillIndex(storage, tenant.project.id);
    ({ key } = await createKey(storage.db, tenant.orgId, { kind: 'assistant', projectIds: [tenant.project.id] }));
    const asks: [string, Record<string, string>][] = [
      ['How do I configure webhooks?', { 'x-quire-assistant': 'web' }],
      ['What about unknown billing?', {}],
      ['which plan is it?', { 'x-quire-assistant': 'slack' }],
    ];
    for (const [text, headers] of asks) {
      const response = await fetch(`${base}/discovery/v2/assistant/${tenant.project.id}/message`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}`, ...headers },
        body: JSON.stringify({ fp: 'reader', messages: [{ role: 'user', parts: [{ type: 'text', text }] }], currentPath: '/api/webhooks' }),
      });
      threads.push(response.headers.get('x-thread-id')!);
      await response.text();
    }
  });
  afterAll(async () => {
    await app.close();
    await model.close();
    await storage.close();
  });

  const get = (path: string, auth = tenant.auth) => fetch(`${base}/v1/analytics/${tenant.project.id}/${path}`, { headers: auth });

  it('lists turns newest first in Mintlify’s shape, page by page with a cursor', async () => {
    const first = await get('assistant?limit=2');
    expect(first.status).toBe(200);
    const page = (await first.json()) as { conversations: { id: string; query: string; timestamp: string }[]; nextCursor: string | null; hasMore: boolean };
    expect(conforms('AssistantConversationsResponse', page)).toBeNull();
    expect(page.conversations.map((row) => row.query)).toEqual(['which plan is it?', 'What about unknown billing?']);
    expect(page.conversations[0]).toMatchObject({ id: threads[2], responseType: 'clarifying_question', pageUrl: 'https://docs.acme.test/api/webhooks' });
    expect(page).toMatchObject({ hasMore: true, nextCursor: expect.any(String) });
    const rest = (await (await get(`assistant?limit=2&cursor=${page.nextCursor}`)).json()) as typeof page;
    expect(conforms('AssistantConversationsResponse', rest)).toBeNull();
    expect(rest).toMatchObject({ hasMore: false, nextCursor: null });
    expect(rest.conversations).toEqual([
      expect.objectContaining({
        id: threads[0],
        query: 'How do I configure webhooks?',
        response: 'Install the CLI, then configure webhooks, as the Setup page says.',
        responseType: 'answer',
        resolutionStatus: 'answered',
        sources: [{ title: 'Setup', url: 'https://docs.acme.test/guides/setup#configure' }],
        queryCategory: 'Get started',
      }),
    ]);
    for (const query of ['limit=0', 'limit=1001', 'cursor=nonsense', 'dateFrom=2026-13-01', 'dateFrom=2030-01-02&dateTo=2030-01-01']) {
      expect((await get(`assistant?${query}`)).status, query).toBe(400);
    }
    const empty = (await (await get('assistant?dateFrom=2020-01-01&dateTo=2020-01-08')).json()) as typeof page;
    expect(empty).toEqual({ conversations: [], nextCursor: null, hasMore: false });
  });

  it('gives a thread’s messages, and 404 for another organization’s key or thread', async () => {
    const response = await get(`assistant/threads/${threads[0]}`);
    expect(response.status).toBe(200);
    const thread = await response.json();
    expect(conforms('AssistantThreadResponse', thread)).toBeNull();
    expect(thread).toMatchObject({
      threadId: threads[0],
      messages: [
        { role: 'user', content: 'How do I configure webhooks?' },
        { role: 'assistant', content: 'Install the CLI, then configure webhooks, as the Setup page says.' },
      ],
    });
    expect((await get(`assistant/threads/${threads[0]}`, stranger.auth)).status).toBe(404);
    const strangers = await fetch(`${base}/v1/analytics/${stranger.project.id}/assistant/threads/${threads[0]}`, { headers: stranger.auth });
    expect(strangers.status).toBe(404);
    expect((await get('assistant/threads/thr_nothing')).status).toBe(404);
    expect((await fetch(`${base}/v1/analytics/${tenant.project.id}/assistant`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(401);
  });

  it('counts questions by caller', async () => {
    const stats = await (await get('assistant/caller-stats')).json();
    expect(conforms('AssistantCallerStatsResponse', stats)).toBeNull();
    expect(stats).toEqual({ web: 1, api: 1, other: 1, total: 3 });
    expect(await (await get('assistant/caller-stats?dateTo=2020-01-01')).json()).toEqual({ web: 0, api: 0, other: 0, total: 0 });
  });
});
