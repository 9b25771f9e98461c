/** What the docs benchmark asks a running Quire over HTTP: settings, builds, searches, files and MCP calls. */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { request } from 'undici';
import { percentile } from './report.ts';

export interface DocsServer {
  url: string;
  projectId: string;
  key: string;
}

async function call(server: DocsServer, method: string, path: string, body?: unknown): Promise<Response> {
  const response = await fetch(`${server.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${server.key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${(await response.text()).slice(0, 300)}`);
  return response;
}

export async function updateProject(server: DocsServer, settings: Record<string, unknown>): Promise<{ mcpName: string }> {
  return (await call(server, 'PATCH', `/v1/projects/${server.projectId}`, settings)).json() as Promise<{ mcpName: string }>;
}

export async function refreshDocs(server: DocsServer): Promise<void> {
  await call(server, 'POST', `/v1/docs/${server.projectId}/refresh`);
}

/** Waits until the index answers from `commit`, polling every 10 ms; the seconds it took from `since`. */
export async function waitForBuild(server: DocsServer, commit: string, since: number): Promise<{ seconds: number; pages: number }> {
  for (;;) {
    const state = (await (await call(server, 'GET', `/v1/docs/${server.projectId}`)).json()) as {
      status: string;
      commit: string | null;
      pages: number;
      error: string | null;
    };
    if (state.commit === commit && state.status !== 'building') return { seconds: (performance.now() - since) / 1000, pages: state.pages };
    if (state.status === 'failed') throw new Error(`the docs build failed: ${state.error}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** The pages a discovery search returns by their routes, best first, each once (its sections folded into the first). */
/**
 * The routes of a discovery search's sections, each once, best first. The quality figures ask for 50
 * sections, to find five pages among them; the speed figures ask as a reader's search does, with the
 * API's default page size (10) unless `pageSize` says otherwise.
 */
export async function searchPages(server: DocsServer, query: string, pageSize?: number): Promise<string[]> {
  const response = await call(server, 'POST', `/discovery/v1/search/${server.projectId}`, pageSize === undefined ? { query } : { query, pageSize });
  const results = (await response.json()) as { path: string }[];
  return [...new Set(results.map((result) => result.path))];
}

/** Each page's file path in the repository by its route, from the index's page listing. */
export async function filesByRoute(server: DocsServer): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  for (let offset = 0; ; offset += 250) {
    const response = await call(server, 'GET', `/v1/docs/${server.projectId}/pages?limit=250&offset=${offset}`);
    const { pages, hasMore } = (await response.json()) as { pages: { path: string; route: string }[]; hasMore: boolean };
    for (const page of pages) files.set(page.route, page.path);
    if (!hasMore) return files;
  }
}

/** Latencies in milliseconds of `clients` loops each running `request` until `seconds` have passed, sorted. */
export async function measureConcurrent(clients: number, seconds: number, request: (round: number) => Promise<unknown>): Promise<number[]> {
  const latencies: number[] = [];
  const until = performance.now() + seconds * 1000;
  let round = 0;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (performance.now() < until) {
        const started = performance.now();
        await request(round++);
        latencies.push(performance.now() - started);
      }
    }),
  );
  return latencies.sort((a, b) => a - b);
}

/** p50 and p99 of sorted latencies. */
export const quantiles = (sorted: number[]) => ({ p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99) });

/** One MCP client session on the project's search MCP server, as an agent would open it. */
export async function mcpClient(server: DocsServer): Promise<{ search(query: string, name: string): Promise<unknown>; close(): Promise<void> }> {
  const client = new Client({ name: 'quire-bench', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/sites/${server.projectId}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${server.key}` } },
  });
  await client.connect(transport);
  return {
    search: (query, name) => client.callTool({ name: `search_${name}`, arguments: { query } }),
    close: () => client.close(),
  };
}

export async function fetchText(server: DocsServer, path: string): Promise<string> {
  return (await call(server, 'GET', path)).text();
}

/**
 * Fetches `path` as an agent asks for a large file (`accept-encoding: br, gzip`) and reads every byte of the
 * answer as sent, without decoding it: the figure is the serving of the file, not this client's brotli and
 * UTF-8 decoding of megabytes on the cores it shares with the server. The bytes received and their coding.
 */
export async function fetchBytes(server: DocsServer, path: string): Promise<{ bytes: number; coding: string }> {
  const response = await request(`${server.url}${path}`, { headers: { authorization: `Bearer ${server.key}`, 'accept-encoding': 'br, gzip' } });
  const body = Buffer.from(await response.body.arrayBuffer());
  if (response.statusCode !== 200) throw new Error(`GET ${path} answered ${response.statusCode}: ${body.toString('utf8', 0, 300)}`);
  return { bytes: body.length, coding: String(response.headers['content-encoding'] ?? 'identity') };
}
