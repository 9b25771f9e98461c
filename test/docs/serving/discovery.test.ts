import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, revokeKey } from '../../../src/accounts/keys.ts';
import type { Storage } from '../../../src/storage/dialect.ts';
import { createTenant, type Tenant } from '../../support/app.ts';
import { testDatabases } from '../../support/storage.ts';
import { fillIndex, startService } from './support.ts';

describe.each(testDatabases)('the discovery search and page on $dialect', (database) => {
  let storage: Storage;
  let app: FastifyInstance;
  let base: string;
  let open: Tenant;
  let closed: Tenant;
  let assistantKey: string;

  beforeAll(async () => {
    storage = await database.open();
    ({ app, base } = await startService(storage));
    open = await createTenant(storage, { project: { docsPublic: true, siteUrl: 'https://docs.acme.test' } });
    closed = await createTenant(storage);
    await fillIndex(storage, open.project.id);
    await fillIndex(storage, closed.project.id);
    ({ key: assistantKey } = await createKey(storage.db, closed.orgId, {
      kind: 'assistant',
      projectIds: [closed.project.id],
      allowedOrigins: ['https://docs.acme.test'],
    }));
  });
  afterAll(async () => {
    await app.close();
    await storage.close();
  });

  const post = (operation: string, projectId: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${base}/discovery/v1/${operation}/${projectId}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });

  it('answers a search with sections best first, the title match ahead, in the contract’s shape', async () => {
    const response = await post('search', open.project.id, { query: 'webhooks', pageSize: 5, someClientField: true });
    expect(response.status).toBe(200);
    const hits = (await response.json()) as { content: string; path: string; metadata: { title: string; url: string; anchor: string; score: number } }[];
    expect(hits[0]).toEqual({
      content: 'Acme signs each delivery.',
      path: '/api/webhooks',
      metadata: { title: 'Webhooks', url: 'https://docs.acme.test/api/webhooks', anchor: '', score: expect.any(Number) },
    });
    const section = hits.find((hit) => hit.metadata.anchor === 'configure');
    expect(section?.metadata).toMatchObject({ title: 'Setup: Configure', url: 'https://docs.acme.test/guides/setup#configure' });
    expect(hits.map((hit) => hit.metadata.score)).toEqual([...hits.map((hit) => hit.metadata.score)].sort((a, b) => b - a));
    expect(hits.every((hit) => hit.metadata.score > 0 && hit.metadata.score <= 1)).toBe(true);
    expect(await (await post('search', open.project.id, { query: 'webhooks', filter: { groups: ['API'] } })).json()).toHaveLength(2);
  });

  it('answers a repeated search with the same JSON, and with the new site URL once the project changes it', async () => {
    const search = () => post('search', open.project.id, { query: 'configure webhooks', pageSize: 7 });
    const first = await search();
    const text = await first.text();
    expect(first.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(JSON.parse(text)[0].metadata.url).toMatch(/^https:\/\/docs\.acme\.test\//);
    expect(await (await search()).text()).toBe(text);
    const patched = await fetch(`${base}/v1/projects/${open.project.id}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json', ...open.auth },
      body: JSON.stringify({ siteUrl: 'https://help.acme.test' }),
    });
    expect(patched.status).toBe(200);
    try {
      const moved = JSON.parse(await (await search()).text()) as { metadata: { url: string } }[];
      expect(moved.map((hit) => hit.metadata.url)).toEqual(
        JSON.parse(text).map((hit: { metadata: { url: string } }) => hit.metadata.url.replace('docs.acme', 'help.acme')),
      );
    } finally {
      await fetch(`${base}/v1/projects/${open.project.id}`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/json', ...open.auth },
        body: JSON.stringify({ siteUrl: 'https://docs.acme.test' }),
      });
    }
  });

  it('refuses a query over 1,000 characters and takes full-text syntax as words', async () => {
    const long = await post('search', open.project.id, { query: 'a'.repeat(1001) });
    expect(long.status).toBe(400);
    expect(await long.json()).toMatchObject({ code: 'invalid_request' });
    for (const query of ['webhooks OR "', 'title:webhooks NEAR(a b) *', '-webhooks AND (', 'NUL\u0000byte']) {
      const response = await post('search', open.project.id, { query });
      expect(response.status, query).toBe(200);
      expect(Array.isArray(await response.json())).toBe(true);
    }
  });

  it('reads a page by route or file path; a missing page is 404, hostile paths find nothing', async () => {
    expect(await (await post('page', open.project.id, { path: '/guides/setup' })).json()).toEqual({
      path: '/guides/setup',
      content: '# Setup\n\nInstall the CLI, then configure webhooks.\n',
    });
    expect(await (await post('page', open.project.id, { path: 'api/webhooks.mdx' })).json()).toMatchObject({ path: '/api/webhooks' });
    expect(await (await post('page', open.project.id, { path: 'guides/setup' })).json()).toMatchObject({ path: '/guides/setup' });
    for (const path of [
      '/nothing',
      '../../etc/passwd',
      '/guides/../api/webhooks',
      '%2e%2e/%2e%2e/etc/passwd',
      '/etc/passwd',
      'index.mdx\u0000',
      'C:\\Windows',
    ]) {
      const response = await post('page', open.project.id, { path });
      expect(response.status, path).toBe(404);
      expect(await response.json()).toMatchObject({ code: 'not_found', error: expect.any(String) });
    }
    expect((await post('page', open.project.id, { path: 'x'.repeat(1001) })).status).toBe(400);
  });

  it('lets through public docs, assistant keys from their origins and admin read keys; refuses the rest as decided', async () => {
    const search = (headers: Record<string, string>) => post('search', closed.project.id, { query: 'setup' }, headers);
    expect((await search({})).status).toBe(401);
    expect((await search({ authorization: `Bearer ${assistantKey}` })).status).toBe(200);
    expect((await search({ authorization: `Bearer ${assistantKey}`, origin: 'https://docs.acme.test' })).status).toBe(200);
    expect((await search({ authorization: `Bearer ${assistantKey}`, origin: 'https://evil.test' })).status).toBe(403);
    expect((await search(closed.auth)).status).toBe(200);
    expect((await search(open.auth)).status).toBe(404);
    const { key, row } = await createKey(storage.db, closed.orgId, { kind: 'assistant', projectIds: [closed.project.id] });
    await revokeKey(storage.db, closed.orgId, row.id);
    expect((await search({ authorization: `Bearer ${key}` })).status).toBe(401);
    const admin = await fetch(`${base}/v1/projects/${closed.project.id}`, { headers: { authorization: `Bearer ${assistantKey}` } });
    expect(admin.status).toBe(401);
  });

  it('answers a browser’s preflight for any origin and names the origin on the answer', async () => {
    const preflight = await fetch(`${base}/discovery/v1/search/${closed.project.id}`, {
      method: 'OPTIONS',
      headers: { origin: 'https://anywhere.test', 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('https://anywhere.test');
    expect(preflight.headers.get('access-control-allow-methods')).toContain('POST');
    expect(preflight.headers.get('access-control-allow-headers')).toContain('authorization');
    const answer = await post('search', open.project.id, { query: 'setup' }, { origin: 'https://docs.acme.test' });
    expect(answer.headers.get('access-control-allow-origin')).toBe('https://docs.acme.test');
    expect(answer.headers.get('ratelimit-limit')).toBe('10000');
  });
});
