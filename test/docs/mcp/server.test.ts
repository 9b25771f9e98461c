import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { call, connect, startServer, type Recorded } from './support.ts';

let app: FastifyInstance;
let url: URL;
let recorded: Recorded;
let client: Client;

beforeAll(async () => {
  ({ app, url, recorded } = await startServer());
  client = await connect(url);
});
afterAll(async () => {
  await client.close();
  await app.close();
});
beforeEach(() => {
  recorded.reads.length = 0;
  recorded.searches.length = 0;
  recorded.feedback.length = 0;
});

const claudeCode = { name: 'claude-code', version: '2.1.0' };

describe('search MCP server over streamable HTTP', () => {
  it('lists the three tools with their annotations', async () => {
    const { tools } = await client.listTools();
    const byName = Object.fromEntries(tools.map((tool) => [tool.name, tool]));
    expect(Object.keys(byName).sort()).toEqual(['query_docs_filesystem_acme', 'search_acme', 'submit_feedback_acme']);
    for (const name of ['search_acme', 'query_docs_filesystem_acme']) {
      expect(byName[name].annotations).toMatchObject({ readOnlyHint: true, idempotentHint: true, openWorldHint: false });
    }
    expect(byName.submit_feedback_acme.annotations).toMatchObject({ readOnlyHint: false, openWorldHint: false });
    expect(byName.query_docs_filesystem_acme.description).toContain('rg [-i] [-l] pattern [path]');
    expect(client.getInstructions()).toContain('search_acme');
  });

  it('searches and records the search with its hit count and the client', async () => {
    const answer = await call(client, 'search_acme', { query: 'webhook' });
    expect(answer.isError).toBe(false);
    expect(answer.text).toContain('# Setup');
    expect(answer.text).toContain('URL: https://docs.acme.test/guides/setup');
    expect(answer.text).toContain('Path: guides/setup.mdx');
    expect(recorded.searches).toEqual([{ query: 'webhook', hits: 2, client: claudeCode }]);
  });

  it('reads two pages with cat and reports both as read', async () => {
    const answer = await call(client, 'query_docs_filesystem_acme', { command: 'cat /index.mdx "guides/setup.mdx"' });
    expect(answer.isError).toBe(false);
    expect(answer.text).toContain('==> index.mdx <==\n---\ntitle: Welcome');
    expect(answer.text).toContain('==> guides/setup.mdx <==\n# Setup');
    expect(recorded.reads).toEqual([{ paths: ['index.mdx', 'guides/setup.mdx'], client: claudeCode }]);
  });

  it('prints the first lines with head -n and counts a view', async () => {
    const answer = await call(client, 'query_docs_filesystem_acme', { command: 'head -n 3 index.mdx' });
    expect(answer.text).toBe('---\ntitle: Welcome\n---\n');
    expect(recorded.reads).toEqual([{ paths: ['index.mdx'], client: claudeCode }]);
  });

  it('lists with ls and tree -L 1 without counting views', async () => {
    expect((await call(client, 'query_docs_filesystem_acme', { command: 'ls' })).text).toBe('api/\nguides/\nindex.mdx\n');
    expect((await call(client, 'query_docs_filesystem_acme', { command: 'ls guides' })).text).toBe('advanced/\nsetup.mdx\n');
    const tree = await call(client, 'query_docs_filesystem_acme', { command: 'tree -L 1' });
    expect(tree.text).toBe('/\n├── api/\n├── guides/\n└── index.mdx\n\n2 folders, 1 page\n');
    const deep = await call(client, 'query_docs_filesystem_acme', { command: 'tree guides' });
    expect(deep.text).toBe('guides\n├── advanced/\n│   └── retries.md\n└── setup.mdx\n\n1 folder, 2 pages\n');
    expect(recorded.reads).toEqual([]);
  });

  it('searches lines with rg, -i and -l, without counting views', async () => {
    const lines = await call(client, 'query_docs_filesystem_acme', { command: 'rg -i webhook' });
    expect(lines.text).toBe('guides/setup.mdx:5:## Webhooks\nguides/setup.mdx:7:Set a WEBHOOK secret.\nindex.mdx:6:Acme sends webhooks.\n');
    expect((await call(client, 'query_docs_filesystem_acme', { command: 'rg -i -l webhook' })).text).toBe('guides/setup.mdx\nindex.mdx\n');
    expect((await call(client, 'query_docs_filesystem_acme', { command: 'rg -l webhook /guides' })).text).toBe('No matches for "webhook" in /guides.\n');
    expect((await call(client, 'query_docs_filesystem_acme', { command: "rg -il 'retr(y|ied)' guides" })).text).toBe('guides/advanced/retries.md\n');
    expect(recorded.reads).toEqual([]);
  });

  it('records feedback on a page and refuses an unknown page', async () => {
    const answer = await call(client, 'submit_feedback_acme', { path: '/guides/setup.mdx', description: 'The secret name is wrong.' });
    expect(answer.isError).toBe(false);
    expect(recorded.feedback).toEqual([{ path: 'guides/setup.mdx', description: 'The secret name is wrong.', client: claudeCode }]);
    const unknown = await call(client, 'submit_feedback_acme', { path: 'nope.md', description: 'x' });
    expect(unknown).toMatchObject({ isError: true });
    expect(unknown.text).toContain('No such page: nope.md');
    expect(recorded.feedback).toHaveLength(1);
    // What recording would drop is refused, never answered "recorded": too long, or not storable.
    const long = await call(client, 'submit_feedback_acme', { path: 'guides/setup.mdx', description: 'x'.repeat(2001) });
    expect(long).toMatchObject({ isError: true });
    const nul = await call(client, 'submit_feedback_acme', { path: 'guides/setup.mdx', description: 'wrong\u0000name' });
    expect(nul).toMatchObject({ isError: true });
    expect(nul.text).toMatch(/NUL character/);
    expect(recorded.feedback).toHaveLength(1);
  });

  it('names each client in its own session', async () => {
    const cursor = await connect(url, 'cursor');
    try {
      await call(cursor, 'query_docs_filesystem_acme', { command: 'cat api/errors.md' });
      await call(client, 'query_docs_filesystem_acme', { command: 'cat api/errors.md' });
    } finally {
      await cursor.close();
    }
    expect(recorded.reads.map((read) => read.client?.name)).toEqual(['cursor', 'claude-code']);
  });
});

describe('HTTP', () => {
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  const initialize = {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'python-agent', version: '1' } },
  };
  const listTools = { jsonrpc: '2.0', id: 2, method: 'tools/list' };

  it('answers initialize as JSON with a session id that names the client, and accepts it back', async () => {
    const response = await fetch(url, { method: 'POST', headers, body: JSON.stringify(initialize) });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('application/json');
    expect(((await response.json()) as { result: { protocolVersion: string } }).result.protocolVersion).toBe('2025-06-18');
    const sessionId = response.headers.get('mcp-session-id') ?? '';
    expect(sessionId).toMatch(/^v1\.[\w-]+\.[\w-]+$/);
    const call = { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'query_docs_filesystem_acme', arguments: { command: 'cat index.mdx' } } };
    const later = await fetch(url, { method: 'POST', headers: { ...headers, 'mcp-session-id': sessionId }, body: JSON.stringify(call) });
    expect(later.status).toBe(200);
    expect(recorded.reads).toEqual([{ paths: ['index.mdx'], client: { name: 'python-agent', version: '1' } }]);
  });

  it('answers 404 to a session id it did not sign, so the client initializes again', async () => {
    const forged = `v1.${Buffer.from('{"name":"forged","version":"1"}').toString('base64url')}.AAAA`;
    const response = await fetch(url, { method: 'POST', headers: { ...headers, 'mcp-session-id': forged }, body: JSON.stringify(listTools) });
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ error: { code: -32001 } });
  });

  it('answers without a session id too', async () => {
    const response = await fetch(url, { method: 'POST', headers, body: JSON.stringify(listTools) });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { result: { tools: unknown[] } }).result.tools).toHaveLength(3);
  });

  it('answers 405 to GET and DELETE: no SSE stream, no session to end', async () => {
    for (const method of ['GET', 'DELETE']) {
      const response = await fetch(url, { method, headers: { accept: 'text/event-stream' } });
      expect(response.status).toBe(405);
      expect(response.headers.get('allow')).toBe('POST');
    }
  });

  it('refuses a JSON-RPC batch, which would carry a hundred calls through one rate-limited request, and runs none of it', async () => {
    const call = (id: number) => ({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name: 'query_docs_filesystem_acme', arguments: { command: 'cat index.mdx' } },
    });
    const before = recorded.reads.length;
    const response = await fetch(url, { method: 'POST', headers, body: JSON.stringify(Array.from({ length: 100 }, (_, index) => call(index + 10))) });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: { code: -32600, message: expect.stringMatching(/batches are not accepted/) } });
    expect(recorded.reads.length).toBe(before);
  });

  it('refuses a body over 1 MiB with 413', async () => {
    const body = JSON.stringify({ ...listTools, params: { padding: 'x'.repeat(1024 * 1024) } });
    const response = await fetch(url, { method: 'POST', headers, body });
    expect(response.status).toBe(413);
  });
});
