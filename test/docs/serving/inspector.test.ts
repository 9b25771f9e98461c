import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Storage } from '../../../src/storage/dialect.ts';
import { createTenant } from '../../support/app.ts';
import { testDatabases } from '../../support/storage.ts';
import { fillIndex, startService } from './support.ts';

const run = promisify(execFile);
/** The Inspector's own command (its package's `mcp-inspector` bin), run on this Node. */
const inspector = new URL('../../../node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js', import.meta.url).pathname;

describe.each(testDatabases)('the MCP Inspector CLI against /sites/{projectId}/mcp of a running Quire on $dialect', (database) => {
  let storage: Storage;
  let app: FastifyInstance;
  let url: string;
  let home: string;

  beforeAll(async () => {
    storage = await database.open();
    let base: string;
    ({ app, base } = await startService(storage));
    const tenant = await createTenant(storage, { project: { name: 'Acme', docsPublic: true, siteUrl: 'https://docs.acme.test', mcpName: 'acme_docs' } });
    await fillIndex(storage, tenant.project.id);
    url = `${base}/sites/${tenant.project.id}/mcp`;
    // The Inspector keeps a catalog of servers under the home folder: give it one of its own.
    home = await mkdtemp(join(tmpdir(), 'quire-inspector-'));
  });
  afterAll(async () => {
    await app.close();
    await storage.close();
    await rm(home, { recursive: true, force: true });
  });

  async function inspect(...args: string[]): Promise<unknown> {
    const { stdout } = await run(process.execPath, [inspector, '--cli', url, ...args], {
      env: { ...process.env, HOME: home, MCP_CATALOG_PATH: join(home, 'mcp.json') },
      timeout: 60_000,
    });
    return JSON.parse(stdout);
  }

  it('lists the tools named after the project’s MCP name', async () => {
    const { tools } = (await inspect('--method', 'tools/list')) as { tools: { name: string }[] };
    expect(tools.map((tool) => tool.name)).toEqual(['search_acme_docs', 'query_docs_filesystem_acme_docs', 'submit_feedback_acme_docs']);
  });

  it('calls the search tool: the best section, with the site’s address', async () => {
    const result = (await inspect('--method', 'tools/call', '--tool-name', 'search_acme_docs', '--tool-arg', 'query=signs delivery')) as {
      content: { type: string; text: string }[];
      isError?: boolean;
    };
    expect(result.isError).not.toBe(true);
    expect(result.content[0].text).toMatch(/^# Webhooks\nURL: https:\/\/docs\.acme\.test\/api\/webhooks\n/);
  });
});
