import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type Recorded } from './support.ts';

const run = promisify(execFile);
/** The Inspector's own command (its package's `mcp-inspector` bin), run on this Node. */
const inspector = new URL('../../../node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js', import.meta.url).pathname;

let app: FastifyInstance;
let url: URL;
let recorded: Recorded;
let home: string;

beforeAll(async () => {
  ({ app, url, recorded } = await startServer());
  // The Inspector keeps a catalog of servers under the home folder: give it one of its own.
  home = await mkdtemp(join(tmpdir(), 'quire-inspector-'));
});
afterAll(async () => {
  await app.close();
  await rm(home, { recursive: true, force: true });
});

async function inspect(...args: string[]): Promise<unknown> {
  const { stdout } = await run(process.execPath, [inspector, '--cli', url.href, ...args], {
    env: { ...process.env, HOME: home, MCP_CATALOG_PATH: join(home, 'mcp.json') },
    timeout: 60_000,
  });
  return JSON.parse(stdout);
}

describe('the MCP Inspector CLI', () => {
  it('lists the tools', async () => {
    const { tools } = (await inspect('--method', 'tools/list')) as { tools: { name: string; annotations: object }[] };
    expect(tools.map((tool) => tool.name)).toEqual(['search_acme', 'query_docs_filesystem_acme', 'submit_feedback_acme']);
    expect(tools[0].annotations).toEqual({ readOnlyHint: true, idempotentHint: true, openWorldHint: false });
  });

  it('calls the filesystem tool, and the read is attributed to the Inspector', async () => {
    const result = await inspect('--method', 'tools/call', '--tool-name', 'query_docs_filesystem_acme', '--tool-arg', 'command=head -n 1 api/errors.md');
    expect(result).toEqual({ content: [{ type: 'text', text: '# Errors\n' }], isError: false });
    expect(recorded.reads).toEqual([{ paths: ['api/errors.md'], client: { name: 'inspector-cli', version: expect.any(String) } }]);
  });
});
