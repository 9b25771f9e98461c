import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import Fastify, { type FastifyInstance } from 'fastify';
import { handleSearchMcpRequest, searchMcpBodyLimit } from '../../../src/docs/mcp/http.ts';
import type { DocsSource, McpClientInfo } from '../../../src/docs/mcp/source.ts';

/** A few pages, as a built index would give them. */
export const pages: Record<string, string> = {
  'index.mdx': '---\ntitle: Welcome\n---\n# Welcome\n\nAcme sends webhooks.\nLine five\nLine six\n',
  'guides/setup.mdx': '# Setup\n\nInstall the CLI.\n\n## Webhooks\n\nSet a WEBHOOK secret.\n',
  'guides/advanced/retries.md': '# Retries\n\nFailed deliveries are retried.\n',
  'api/errors.md': '# Errors\n\nEvery error has a code.\n',
};

export interface Recorded {
  reads: { paths: string[]; client: McpClientInfo | undefined }[];
  searches: { query: string; hits: number; client: McpClientInfo | undefined }[];
  feedback: { path: string; description: string; client: McpClientInfo | undefined }[];
  fileReads: string[];
}

/** An in-memory source over `files`: search finds the pages whose text holds every word of the query. */
export function memorySource(files: Record<string, string>): { source: DocsSource; recorded: Recorded } {
  const recorded: Recorded = { reads: [], searches: [], feedback: [], fileReads: [] };
  const source: DocsSource = {
    async search(query, { limit }) {
      const words = query.toLowerCase().split(/\s+/);
      return Object.entries(files)
        .filter(([, text]) => words.every((word) => text.toLowerCase().includes(word)))
        .slice(0, limit)
        .map(([path, text]) => ({ title: text.match(/^# (.*)$/m)?.[1] ?? path, url: `https://docs.acme.test/${path.replace(/\.mdx?$/, '')}`, text, path }));
    },
    async files() {
      return Object.entries(files).map(([path, text]) => ({
        path,
        read: async () => {
          recorded.fileReads.push(path);
          return text;
        },
      }));
    },
    async submitFeedback(path, description, client) {
      recorded.feedback.push({ path, description, client });
    },
    onPageRead: (paths, client) => recorded.reads.push({ paths, client }),
    onSearch: (query, hits, client) => recorded.searches.push({ query, hits, client }),
  };
  return { source, recorded };
}

/** A Fastify server on a free port whose `/sites/prj_1/mcp` is the search MCP server over `files`. */
export async function startServer(files: Record<string, string> = pages): Promise<{ app: FastifyInstance; url: URL; recorded: Recorded }> {
  const { source, recorded } = memorySource(files);
  const app = Fastify();
  app.route({
    method: ['GET', 'POST', 'DELETE'],
    url: '/sites/prj_1/mcp',
    bodyLimit: searchMcpBodyLimit,
    handler: (request, reply) => handleSearchMcpRequest(request, reply, { name: 'acme', siteName: 'Acme', source, sessionKey: 'test-key' }),
  });
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  return { app, url: new URL('/sites/prj_1/mcp', address), recorded };
}

export async function connect(url: URL, name = 'claude-code'): Promise<Client> {
  const client = new Client({ name, version: '2.1.0' });
  await client.connect(new StreamableHTTPClientTransport(url));
  return client;
}

/** The text of a tool's answer, with whether it is an error. */
export async function call(client: Client, name: string, args: Record<string, unknown>): Promise<{ text: string; isError: boolean }> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  const text = result.content.map((part) => (part.type === 'text' ? part.text : '')).join('\n---\n');
  return { text, isError: result.isError === true };
}
