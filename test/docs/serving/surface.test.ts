import { request as httpRequest } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey } from '../../../src/accounts/keys.ts';
import type { Storage } from '../../../src/storage/dialect.ts';
import { createTenant, type Tenant } from '../../support/app.ts';
import { testDatabases } from '../../support/storage.ts';
import { browserAccept, fillIndex, page, sitePages, startService } from './support.ts';

describe.each(testDatabases)('the site surface on $dialect', (database) => {
  let storage: Storage;
  let app: FastifyInstance;
  let base: string;
  let open: Tenant;
  let closed: Tenant;
  let assistantKey: string;

  beforeAll(async () => {
    storage = await database.open();
    ({ app, base } = await startService(storage, { publicUrl: 'https://quire.acme.test' }));
    open = await createTenant(storage, { project: { name: 'Acme', docsPublic: true, siteUrl: 'https://docs.acme.test' } });
    closed = await createTenant(storage);
    await fillIndex(storage, open.project.id);
    await fillIndex(storage, closed.project.id);
    ({ key: assistantKey } = await createKey(storage.db, closed.orgId, { kind: 'assistant', projectIds: [closed.project.id] }));
  });
  afterAll(async () => {
    await app.close();
    await storage.close();
  });

  /** A request sent as written: fetch would resolve `..` and `%2e%2e` before sending. */
  const rawStatus = (path: string) =>
    new Promise<number>((resolve, reject) => {
      const request = httpRequest(new URL(base), { path, method: 'GET' }, (response) => {
        response.resume();
        resolve(response.statusCode!);
      });
      request.on('error', reject).end();
    });

  const get = (project: Tenant, path: string, headers: Record<string, string> = {}) => fetch(`${base}/sites/${project.project.id}${path}`, { headers });

  it('serves llms.txt in navigation order by group, hidden pages left out, at both places', async () => {
    const response = await get(open, '/llms.txt');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    const text = await response.text();
    expect(text).toBe(
      [
        '# Acme',
        '',
        '> The Acme documentation.',
        '',
        '## Get started',
        '',
        '- [Welcome](https://docs.acme.test/index.md): Start here',
        '- [Setup](https://docs.acme.test/guides/setup.md): Install and configure',
        '- [Guides](https://docs.acme.test/guides.md)',
        '',
        '## API',
        '',
        '- [Webhooks](https://docs.acme.test/api/webhooks.md): Delivery and signatures',
        '',
      ].join('\n'),
    );
    expect(await (await get(open, '/.well-known/llms.txt')).text()).toBe(text);
  });

  /** A GET sent with exactly these headers (fetch adds its own Accept-Encoding and decodes the body). */
  const rawGet = (path: string, headers: Record<string, string>) =>
    new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }>((resolve, reject) => {
      const request = httpRequest(new URL(path, base), { method: 'GET', headers }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => resolve({ status: response.statusCode!, headers: response.headers, body: Buffer.concat(chunks) }));
      });
      request.on('error', reject).end();
    });

  it('keeps llms.txt per build: a strong ETag that answers 304, compressed copies, and the next build’s file at once', async () => {
    const tenant = await createTenant(storage, { project: { name: 'Kept', docsPublic: true, siteUrl: 'https://docs.kept.test' } });
    await fillIndex(storage, tenant.project.id);
    const path = `/sites/${tenant.project.id}/llms.txt`;
    const plain = await rawGet(path, {});
    expect(plain.status).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.headers.vary).toBe('accept-encoding');
    const etag = plain.headers.etag as string;
    expect(etag).toMatch(/^"[^"]+"$/);
    expect(plain.body.toString()).toContain('- [Setup](https://docs.kept.test/guides/setup.md): Install and configure');
    const revalidated = await rawGet(path, { 'if-none-match': etag });
    expect(revalidated.status).toBe(304);
    expect(revalidated.body.length).toBe(0);
    expect((await rawGet(path, { 'if-none-match': '"other"' })).status).toBe(200);

    // The first request for a coding is answered as it is while its copy is made; later ones get the copy.
    const coded = async (acceptEncoding: string) => {
      for (let attempt = 0; attempt < 100; attempt++) {
        const answer = await rawGet(path, { 'accept-encoding': acceptEncoding });
        if (answer.headers['content-encoding']) return answer;
        expect(answer.body.equals(plain.body)).toBe(true);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      throw new Error(`no ${acceptEncoding} copy was made`);
    };
    const brotli = await coded('gzip, deflate, br');
    expect(brotli.headers['content-encoding']).toBe('br');
    expect(brotliDecompressSync(brotli.body).equals(plain.body)).toBe(true);
    expect(brotli.headers.etag).not.toBe(etag);
    expect((await rawGet(path, { 'accept-encoding': 'br', 'if-none-match': brotli.headers.etag as string })).status).toBe(304);
    const gzip = await coded('gzip, br;q=0');
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gzip.body).equals(plain.body)).toBe(true);
    expect((await rawGet(path, { 'accept-encoding': 'identity, *;q=0' })).headers['content-encoding']).toBeUndefined();

    // A new build: the old ETag no longer matches and the new pages are listed at once.
    await fillIndex(storage, tenant.project.id, [
      ...sitePages.filter((each) => each.path !== 'guides/setup.mdx'),
      page('guides/setup.mdx', 'Installation', 'Install the CLI.', { group: 'Get started', position: 1 }),
    ]);
    const rebuilt = await rawGet(path, { 'if-none-match': etag });
    expect(rebuilt.status).toBe(200);
    expect(rebuilt.headers.etag).not.toBe(etag);
    expect(rebuilt.body.toString()).toContain('- [Installation](https://docs.kept.test/guides/setup.md)');
    expect(rebuilt.body.toString()).not.toContain('[Setup]');
  });

  it('serves llms-full.txt: every listed page with its title, source and Markdown', async () => {
    const text = await (await get(open, '/llms-full.txt')).text();
    expect(text).toContain('# Welcome\n\nSource: https://docs.acme.test/\n\n# Welcome\n\nAcme sends events to your servers.\n');
    expect(text.indexOf('Source: https://docs.acme.test/guides/setup')).toBeLessThan(text.indexOf('Source: https://docs.acme.test/api/webhooks'));
    expect(text).not.toContain('Internal');
    // Built once per build of the index and shared: thirty requests at once get the same bytes, the same ETag, and a 304 to it.
    const answers = await Promise.all(Array.from({ length: 30 }, () => get(open, '/llms-full.txt')));
    // One file: its plain ETag, or the same with the coding of a compressed copy.
    const etags = new Set(answers.map((answer) => answer.headers.get('etag')!.replace(/-(br|gzip)"$/, '"')));
    expect(etags.size).toBe(1);
    expect(new Set(await Promise.all(answers.map((answer) => answer.text())))).toEqual(new Set([text]));
    expect((await get(open, '/llms-full.txt', { 'if-none-match': [...etags][0]!, 'accept-encoding': 'identity' })).status).toBe(304);
  });

  it('serves a page’s Markdown at its .md path, the root at /index.md and a folder’s index at /{folder}/index.md', async () => {
    const response = await get(open, '/guides/setup.md');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
    expect(response.headers.get('vary')).toBe('accept');
    expect(response.headers.get('link')).toBe(`<https://quire.acme.test/sites/${open.project.id}/llms.txt>; rel="llms-txt"`);
    expect(await response.text()).toBe('# Setup\n\nInstall the CLI, then configure webhooks.\n');
    expect(await (await get(open, '/index.md')).text()).toContain('# Welcome');
    expect(await (await get(open, '/guides/index.md')).text()).toContain('# Guides');
    expect(await (await get(open, '/guides.md')).text()).toContain('# Guides');
    expect(await (await get(open, '/api/internal.md')).text()).toContain('# Internal');
    for (const path of [
      '/nothing.md',
      '/../index.md',
      '/%2e%2e/index.md',
      '/guides/%2e%2e/%2e%2e/etc/passwd.md',
      '/guides/%00.md',
      `/${'a'.repeat(5000)}.md`,
    ]) {
      expect(await rawStatus(`/sites/${open.project.id}${path}`), path).toBe(404);
    }
  });

  it('answers Markdown for a route when Accept ranks it above HTML, and the page as HTML to a browser that follows a link', async () => {
    const markdown = await get(open, '/guides/setup', { accept: 'text/markdown;q=0.9, text/html;q=0.8' });
    expect(markdown.status).toBe(200);
    expect(markdown.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
    expect(await (await get(open, '/', { accept: 'text/markdown' })).text()).toContain('# Welcome');
    for (const accept of [browserAccept, 'text/html;q=0.5, text/markdown;q=0.5']) {
      const page = await get(open, '/guides/setup', { accept });
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(page.headers.get('content-security-policy')).toMatch(/default-src 'none'/);
      expect(page.headers.get('vary')).toBe('accept');
      const html = await page.text();
      expect(html).toContain('<title>Setup</title>');
      expect(html).toContain('<h1>Setup</h1>');
      expect(html).toContain(`href="https://quire.acme.test/sites/${open.project.id}/guides/setup.md"`);
    }
    expect(await (await get(open, '/', { accept: browserAccept })).text()).toContain('<h1>Welcome</h1>');
    expect((await get(open, '/nothing', { accept: browserAccept })).status).toBe(404);
  });

  it('describes its MCP server at /.well-known/mcp(.json): public or with a bearer key', async () => {
    const publicServer = await (await get(open, '/.well-known/mcp')).json();
    const url = `https://quire.acme.test/sites/${open.project.id}/mcp`;
    expect(publicServer).toEqual({
      version: '2025-06-18',
      transport: 'http',
      url,
      servers: [{ name: 'public', url, transport: 'http', authentication: 'none' }],
    });
    const authenticated = (await (await get(closed, '/.well-known/mcp.json', { authorization: `Bearer ${assistantKey}` })).json()) as { servers: object[] };
    expect(authenticated.servers).toEqual([expect.objectContaining({ name: 'authenticated', authentication: 'bearer' })]);
  });

  it('needs a key when the docs are not public', async () => {
    expect((await get(closed, '/llms.txt')).status).toBe(401);
    expect((await get(closed, '/llms.txt', { authorization: `Bearer ${assistantKey}` })).status).toBe(200);
    expect((await get(closed, '/llms.txt', closed.auth)).status).toBe(200);
    expect((await get(closed, '/llms.txt', open.auth)).status).toBe(404);
    const { key } = await createKey(storage.db, closed.orgId, {
      kind: 'assistant',
      projectIds: [closed.project.id],
      allowedOrigins: ['https://docs.acme.test'],
    });
    expect((await get(closed, '/llms.txt', { authorization: `Bearer ${key}`, origin: 'https://docs.acme.test' })).status).toBe(200);
    expect((await get(closed, '/llms.txt', { authorization: `Bearer ${key}`, origin: 'https://evil.test' })).status).toBe(403);
  });
});
