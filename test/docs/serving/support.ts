import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { FastifyInstance } from 'fastify';
import { beginBuild } from '../../../src/docs/index/begin.ts';
import { finishBuild } from '../../../src/docs/index/finish.ts';
import type { PageToWrite } from '../../../src/docs/index/types.ts';
import { writePages } from '../../../src/docs/index/write.ts';
import type { Config } from '../../../src/config/config.ts';
import type { AppContext } from '../../../src/http/context.ts';
import type { Storage } from '../../../src/storage/dialect.ts';
import { testApp, testContext } from '../../support/app.ts';

export function page(path: string, title: string, body: string, extra: Partial<PageToWrite> = {}): PageToWrite {
  const route = extra.route ?? `/${path.replace(/\.mdx?$/, '')}`;
  return {
    path,
    route,
    title,
    description: null,
    keywords: [],
    group: 'Pages',
    position: 0,
    hidden: false,
    markdown: `# ${title}\n\n${body}\n`,
    sections: [{ anchor: '', heading: title, level: 1, markdown: body, text: body }],
    sourceHash: `${title}:${body}`,
    ...extra,
  };
}

/** A small site: a root page, two groups, a folder index, a hidden page, and a page whose title is the word searched for. */
export const sitePages: PageToWrite[] = [
  page('index.mdx', 'Welcome', 'Acme sends events to your servers.', { route: '/', group: 'Get started', position: 0, description: 'Start here' }),
  page('guides/setup.mdx', 'Setup', 'Install the CLI, then configure webhooks.', {
    group: 'Get started',
    position: 1,
    description: 'Install and configure',
    sections: [
      { anchor: '', heading: 'Setup', level: 1, markdown: 'Install the CLI.', text: 'Install the CLI.' },
      { anchor: 'configure', heading: 'Configure', level: 2, markdown: '## Configure\n\nThen configure webhooks.', text: 'Then configure webhooks.' },
    ],
  }),
  page('guides/index.mdx', 'Guides', 'All the guides.', { route: '/guides', group: 'Get started', position: 2 }),
  page('api/webhooks.mdx', 'Webhooks', 'Acme signs each delivery.', { group: 'API', position: 3, description: 'Delivery and signatures' }),
  page('api/internal.mdx', 'Internal', 'Hidden from llms.txt but searchable: webhooks internals.', { group: 'API', position: 4, hidden: true }),
];

export async function fillIndex(storage: Storage, projectId: string, pages: PageToWrite[] = sitePages): Promise<void> {
  const build = await beginBuild(storage, projectId, 'c1');
  await writePages(storage, build, pages);
  await finishBuild(storage, build);
}

/** The whole service on a free port, as the server runs it. */
export async function startService(storage: Storage, config: Partial<Config> = {}): Promise<{ app: FastifyInstance; base: string; context: AppContext }> {
  const context = testContext(storage, { config });
  const app = await testApp(context);
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  return { app, base, context };
}

export async function connect(url: string, name: string, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name, version: '2.1.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return client;
}

export async function call(client: Client, name: string, args: Record<string, unknown>): Promise<{ text: string; isError: boolean }> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  return { text: result.content.map((part) => (part.type === 'text' ? part.text : '')).join('\n---\n'), isError: result.isError === true };
}

export const claudeBot = 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ClaudeBot/1.0; +claudebot@anthropic.com)';
export const browserAccept = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';
