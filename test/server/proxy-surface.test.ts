import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { updateProject } from '../../src/accounts/projects.ts';
import { foldPending } from '../../src/analytics/fold/fold.ts';
import { existingProjectKey } from '../../src/analytics/ingest/dense-ids.ts';
import { ProxyRecorder } from '../../src/analytics/proxy/recorder.ts';
import { workerStore } from '../../src/analytics/proxy/worker-store.ts';
import type { AppContext } from '../../src/http/context.ts';
import { createSiteProxy } from '../../src/server/proxy.ts';
import type { Storage } from '../../src/storage/dialect.ts';
import { call, claudeBot, connect, fillIndex, startService } from '../docs/serving/support.ts';
import { testConfig, createTenant, type Tenant } from '../support/app.ts';
import { testDatabases, type TestLocation } from '../support/storage.ts';

const chrome = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';

/**
 * The docs site: every path is an HTML page except `/missing` (404), and the files in `own`, which it
 * serves itself. A large 404 body shows the proxy never waits for the whole of it.
 */
async function startUpstream() {
  const own = new Map<string, { type: string; body: string }>();
  const seen: { path: string; headers: IncomingHttpHeaders }[] = [];
  const server = createServer((request, response) => {
    const path = request.url ?? '/';
    seen.push({ path, headers: request.headers });
    const file = own.get(path);
    if (file) return response.writeHead(200, { 'content-type': file.type }).end(file.body);
    if (path.endsWith('.md') || path.endsWith('.txt') || path.startsWith('/.well-known/') || path === '/missing') {
      return response.writeHead(404, { 'content-type': 'text/html' }).end(`<h1>Not found</h1>${'<!-- padding -->'.repeat(20_000)}`);
    }
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', link: '</style.css>; rel="preload"' }).end(`<h1>${path}</h1>`);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { server, own, seen, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

describe.each(testDatabases)('quire proxy with the site surface on $dialect', (database) => {
  let storage: Storage & { location: TestLocation };
  let upstream: Awaited<ReturnType<typeof startUpstream>>;
  let app: FastifyInstance;
  let base: string;
  let context: AppContext;
  const stops: (() => Promise<unknown>)[] = [];

  beforeAll(async () => {
    storage = await database.open();
    upstream = await startUpstream();
    ({ app, base, context } = await startService(storage));
  });
  afterAll(async () => {
    for (const stop of stops) await stop();
    upstream.server.close();
    await app.close();
    await storage.close();
  });

  async function startProxy(docsPublic: boolean) {
    const tenant = await createTenant(storage, { project: { name: 'Acme', docsPublic, siteUrl: 'https://docs.acme.test', mcpName: 'acme' } });
    await fillIndex(storage, tenant.project.id);
    const logger = pino({ level: 'silent' });
    const writer = workerStore({ projectId: tenant.project.id, env: { ...process.env, ...storage.location.env } }, logger);
    const recorder = new ProxyRecorder({ store: writer.store, logger, flushMilliseconds: 20 });
    const proxy = await createSiteProxy({
      storage,
      config: testConfig(),
      projectId: tenant.project.id,
      upstream: upstream.url,
      recorder,
      logger,
      refreshMilliseconds: 0,
    });
    await proxy.listen({ host: '127.0.0.1', port: 0 });
    stops.push(async () => {
      await proxy.close();
      await recorder.close(2_000);
      await writer.close();
    });
    return { tenant, url: proxy.addresses()[0], recorder };
  }

  const analytics = async (tenant: Tenant, operation: string) => {
    const key = await existingProjectKey(storage.db, context.analytics.ids, tenant.project.id);
    if (key !== undefined) await foldPending(storage, key);
    const response = await fetch(`${base}/v1/analytics/${tenant.project.id}/${operation}`, { headers: tenant.auth });
    return response.json() as Promise<Record<string, unknown>>;
  };

  it('answers llms.txt from the index when the upstream has none, with the site’s own address in it', async () => {
    const { url } = await startProxy(true);
    const response = await fetch(`${url}/llms.txt`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    const text = await response.text();
    expect(text).toMatch(/^# Acme\n\n> The Acme documentation\.\n/);
    expect(text).toContain('- [Setup](https://docs.acme.test/guides/setup.md): Install and configure');
    expect(upstream.seen.at(-1)?.path).toBe('/llms.txt');
    expect(await (await fetch(`${url}/.well-known/llms.txt`)).text()).toBe(text);
    const discovery = (await (await fetch(`${url}/.well-known/mcp`)).json()) as { url: string; servers: object[] };
    expect(discovery.url).toBe('https://docs.acme.test/mcp');
    expect(discovery.servers).toEqual([{ name: 'public', url: 'https://docs.acme.test/mcp', transport: 'http', authentication: 'none' }]);
    const head = await fetch(`${url}/llms-full.txt`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(Number(head.headers.get('content-length'))).toBeGreaterThan(100);
  });

  it('lets the upstream’s own llms.txt and .md files win', async () => {
    const { url } = await startProxy(true);
    upstream.own.set('/llms.txt', { type: 'text/plain', body: '# The site’s own\n' });
    upstream.own.set('/guides/setup.md', { type: 'text/markdown', body: '# Setup, as the site writes it\n' });
    try {
      expect(await (await fetch(`${url}/llms.txt`)).text()).toBe('# The site’s own\n');
      expect(await (await fetch(`${url}/guides/setup.md`)).text()).toBe('# Setup, as the site writes it\n');
    } finally {
      upstream.own.clear();
    }
  });

  it('answers a page’s Markdown at its .md path and for Accept: text/markdown, and links HTML pages to llms.txt', async () => {
    const { url } = await startProxy(true);
    const markdown = await fetch(`${url}/guides/setup.md`);
    expect(markdown.status).toBe(200);
    expect(markdown.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
    expect(markdown.headers.get('link')).toBe('<https://docs.acme.test/llms.txt>; rel="llms-txt"');
    expect(await markdown.text()).toBe('# Setup\n\nInstall the CLI, then configure webhooks.\n');
    const negotiated = await fetch(`${url}/api/webhooks`, { headers: { accept: 'text/markdown, text/html;q=0.5' } });
    expect(await negotiated.text()).toBe('# Webhooks\n\nAcme signs each delivery.\n');
    expect(negotiated.headers.get('vary')).toBe('accept');

    const html = await fetch(`${url}/guides/setup`, { headers: { accept: 'text/html' } });
    expect(await html.text()).toBe('<h1>/guides/setup</h1>');
    expect(html.headers.get('link')).toBe('</style.css>; rel="preload", <https://docs.acme.test/llms.txt>; rel="llms-txt"');
    // Neither the upstream nor the index has it: the upstream's 404 goes through, whole.
    const missing = await fetch(`${url}/nowhere.md`);
    expect(missing.status).toBe(404);
    expect((await missing.text()).length).toBe('<h1>Not found</h1>'.length + '<!-- padding -->'.length * 20_000);
    const notPage = await fetch(`${url}/missing`);
    expect(notPage.status).toBe(404);
    expect(notPage.headers.get('link')).toBeNull();
  });

  it('serves the search MCP server at /mcp through the SDK client', async () => {
    const { url } = await startProxy(true);
    const seenBefore = upstream.seen.length;
    const client = await connect(`${url}/mcp`, 'claude-code');
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['search_acme', 'query_docs_filesystem_acme', 'submit_feedback_acme']);
    expect((await call(client, 'search_acme', { query: 'webhooks' })).text).toMatch(/URL: https:\/\/docs\.acme\.test\/api\/webhooks/);
    await client.close();
    expect(upstream.seen.length).toBe(seenBefore);
  });

  it('forwards everything as before while the docs are not public, and sees docsPublic change without a restart', async () => {
    const { url, tenant } = await startProxy(false);
    const llms = await fetch(`${url}/llms.txt`);
    expect(llms.status).toBe(404);
    expect(await llms.text()).toMatch(/^<h1>Not found/);
    expect((await fetch(`${url}/guides/setup.md`)).status).toBe(404);
    expect(await (await fetch(`${url}/api/webhooks`, { headers: { accept: 'text/markdown' } })).text()).toBe('<h1>/api/webhooks</h1>');
    expect((await fetch(`${url}/guides/setup`)).headers.get('link')).toBe('</style.css>; rel="preload"');
    const mcp = await fetch(`${url}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(await mcp.text()).toBe('<h1>/mcp</h1>');

    await updateProject(storage.db, tenant.project.id, { docsPublic: true });
    await expect.poll(async () => (await fetch(`${url}/llms.txt`)).status).toBe(200);
  });

  it('records every request once: a .md read by ClaudeBot as an AI view of its page, an HTML page as a human view', async () => {
    const { url, tenant, recorder } = await startProxy(true);
    expect((await fetch(`${url}/guides/setup.md`, { headers: { 'user-agent': claudeBot } })).status).toBe(200);
    expect((await fetch(`${url}/api/webhooks`, { headers: { 'user-agent': chrome, accept: 'text/html' } })).status).toBe(200);
    const client = await connect(`${url}/mcp`, 'claude-code');
    await call(client, 'query_docs_filesystem_acme', { command: 'cat api/webhooks.mdx' });
    await client.close();
    // The writer thread starts with the first batch: give it time on a busy machine. The fourth view
    // stored is the MCP client's GET for an event stream, answered 405.
    await expect.poll(() => recorder.counters.stored, { timeout: 20_000 }).toBe(4);

    await expect
      .poll(async () => ((await analytics(tenant, 'visitors')) as { visitors: object[] }).visitors)
      .toEqual([
        { path: '/api/webhooks', human: 1, ai: 1, total: 2 },
        { path: '/guides/setup', human: 0, ai: 1, total: 1 },
      ]);
    const agents = (await analytics(tenant, 'agents')) as { agents: object[] };
    expect(agents.agents).toEqual([
      expect.objectContaining({ agent: 'Claude Code', views: 1, mcpViews: 1 }),
      expect.objectContaining({ agent: 'ClaudeBot', views: 1, mcpViews: 0 }),
    ]);
    // Each request once: the MCP client's POSTs are recorded and skipped, as any POST the proxy
    // forwards; its GET for an event stream is stored under its 405, which no count includes.
    const { recorded, stored, skipped } = recorder.status();
    expect(Object.keys(skipped)).toEqual(['not a GET or HEAD request']);
    expect(recorded).toBe(stored + skipped['not a GET or HEAD request']);
  });
});
