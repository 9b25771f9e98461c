import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import pino from 'pino';
import { createKey } from '../src/accounts/keys.ts';
import { setServerCredentials } from '../src/accounts/local-grants.ts';
import { createOrganization } from '../src/accounts/organizations.ts';
import { createProject } from '../src/accounts/projects.ts';
import { loadConfig } from '../src/config/config.ts';
import { buildApp } from '../src/server/app.ts';
import { createContext } from '../src/server/context.ts';
import { openStorage } from '../src/storage/open.ts';
import { startGitHttpServer } from '../test/support/git-http-server.ts';
import { startGithubServer } from '../test/support/github-server.ts';
import { docsRepositoryFiles, pageCount } from './agent.ts';
import { percentile, type BenchSuite, type Report } from './report.ts';

const token = 'ghp_benchToken0123456789abcdefABCDEF';
const calls = Number(process.env.QUIRE_BENCH_MCP_CALLS ?? 200);

async function timed(work: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await work();
  return performance.now() - start;
}

async function median(work: () => Promise<unknown>): Promise<number> {
  const times: number[] = [];
  for (let index = 0; index < calls; index++) times.push(await timed(work));
  return percentile(
    times.sort((a, b) => a - b),
    0.5,
  );
}

/**
 * The admin MCP server on a Quire in this process (SQLite), the MCP SDK's client over HTTP, and the
 * agent bench's repository behind git smart HTTP and a local GitHub REST server: `read_file` and
 * `search` calls beside the same workspace tool called directly, `checkout` cold and warm beside `git clone`.
 */
async function run(report: Report): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'quire-bench-mcp-'));
  const gitServer = await startGitHttpServer({ username: 'x-access-token', password: token, privateFetch: true });
  const github = await startGithubServer({ tokens: [token] });
  const config = loadConfig({
    QUIRE_DATA_DIR: join(root, 'data'),
    GITHUB_SERVER_URL: gitServer.url,
    GITHUB_API_URL: github.url,
    GITHUB_TOKEN: token,
    LOG_LEVEL: 'silent',
  });
  const storage = await openStorage(config);
  const context = createContext(config, storage, { logger: pino({ level: 'silent' }) });
  const app = await buildApp(context);
  const client = new Client({ name: 'bench-agent', version: '1.0.0' });
  try {
    const repository = gitServer.createRepository('acme/docs', docsRepositoryFiles());
    const organization = await createOrganization(storage.db, 'Bench');
    await setServerCredentials(storage.db, organization.id, true);
    const project = await createProject(storage.db, organization.id, { name: 'Bench', repository, ref: 'main' });
    const { key, row } = await createKey(storage.db, organization.id, { scopes: ['read', 'write'] });
    const url = await app.listen({ port: 0, host: '127.0.0.1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
    const call = async (name: string, args: Record<string, unknown>) => {
      const result = await client.callTool({ name, arguments: args });
      if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(result.content)}`);
      return result.structuredContent as { sessionId: string };
    };

    const clone = await timed(() =>
      promisify(execFile)('git', [
        '-c',
        `http.extraHeader=Authorization: Basic ${Buffer.from(`x-access-token:${token}`).toString('base64')}`,
        'clone',
        '--quiet',
        repository,
        join(root, 'plain-clone'),
      ]),
    );
    let session = { sessionId: '' };
    const cold = await timed(async () => (session = await call('checkout', { projectId: project.id })));
    let second = { sessionId: '' };
    const warm = await timed(async () => (second = await call('checkout', { projectId: project.id })));
    const reference = { name: `git clone of the same ${pageCount}-page repository`, value: clone };
    report.add({ name: 'checkout, first session (cold mirror)', value: cold, unit: 'ms', reference, target: { text: '≤ 1× clone', met: cold <= clone } });
    report.add({
      name: 'checkout, second session (warm mirror)',
      value: warm,
      unit: 'ms',
      reference,
      target: { text: '≤ 0.3× clone', met: warm <= 0.3 * clone },
    });

    const open = context.adminSessions.find(second.sessionId, row, () => true)!;
    const read = { path: 'docs/section-07/page-1287.md' };
    // One section's 50 pages: on a loaded machine a search of all 2,000 can reach the tool's 5 s limit.
    const search = { pattern: 'Details 1287', path: 'docs/section-07' };
    for (const [tool, input] of [
      ['read_file', read],
      ['search', search],
    ] as const) {
      const direct = await median(() => open.bench.callTool(tool, input));
      const viaMcp = await median(() => call(tool, { sessionId: second.sessionId, ...input }));
      report.add({
        name: `${tool} through the MCP SDK client, p50 of ${calls}`,
        value: viaMcp,
        unit: 'ms',
        reference: { name: `the same tool called in process`, value: direct },
        target: { text: '≤ 15 ms', met: viaMcp <= 15 },
      });
    }
    void session;
  } finally {
    await client.close().catch(() => undefined);
    await context.adminSessions.endAll();
    await app.close();
    await storage.close();
    await Promise.all([gitServer.close(), github.close()]);
    rmSync(root, { recursive: true, force: true });
  }
}

export const mcpBench: BenchSuite = {
  name: 'mcp',
  description: `the admin MCP server: tool calls through the MCP SDK client, checkout of the agent bench's ${pageCount}-page repository`,
  run,
};
