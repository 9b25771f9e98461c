import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DocsBuilder } from '../../src/docs/index/build/builder.ts';
import type { Storage } from '../../src/storage/dialect.ts';
import { createTenant, grantAccess, testApp, testContext, type Tenant } from '../support/app.ts';
import { quireCommands } from '../support/cli.ts';
import { buildContext, docsRepository, pushDocsChange } from '../support/docs-repositories.ts';
import { testDatabases } from '../support/storage.ts';

// The CLI is an HTTP client: one database is enough here (the routes are tested on both).
describe('quire docs, against a listening server with a builder', () => {
  let storage: Storage;
  let app: FastifyInstance;
  let builder: DocsBuilder;
  let tenant: Tenant;
  let repository: string;
  let dataDir: string;
  let repositories: string;
  let commands: ReturnType<typeof quireCommands>;
  let url: string;

  beforeAll(async () => {
    storage = await testDatabases[0].open();
    dataDir = mkdtempSync(join(tmpdir(), 'quire-cli-docs-'));
    repositories = mkdtempSync(join(tmpdir(), 'quire-cli-docs-repos-'));
    repository = join(repositories, 'docs.git');
    docsRepository(repository, { write: { 'mkdocs.yml': 'site_name: Acme\nnav:\n  - Home: index.md\n', 'docs/index.md': '# Home\n\nHello.\n' } });
    const context = testContext(storage, { config: { dataDir } });
    app = await testApp(context);
    url = await app.listen({ port: 0, host: '127.0.0.1' });
    tenant = await createTenant(storage, { project: { repository, ref: 'main' } });
    await grantAccess(storage, context.config, tenant.orgId, { localDirectories: [repositories] });
    builder = new DocsBuilder({ ...buildContext(storage, context.config), leaseMs: 30_000, maxAttempts: 3, pollMs: 50 });
    context.events.on('docs-build-requested', builder.notify);
    builder.start();
    commands = quireCommands({ ...process.env, QUIRE_URL: url, QUIRE_API_KEY: tenant.key });
  });
  afterAll(async () => {
    await builder.stop();
    await app.close();
    await storage.close();
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(repositories, { recursive: true, force: true });
  });

  it('shows the status, refreshes and waits for the build, and exits 2 when it failed', async () => {
    const project = tenant.project.id;
    expect((await commands.quire('docs', 'status', '--project', project)).stdout).toContain('none  (nothing built yet)');
    const waited = await commands.quire('docs', 'refresh', '--project', project, '--wait');
    expect(waited.stdout).toMatch(/^Building the docs index\.*\nready {2}\([0-9a-f]{12}, built .*, 1 pages, 1 sections\)\n$/);
    const status = JSON.parse((await commands.quire('docs', 'status', '--project', project, '--json')).stdout);
    expect(status).toMatchObject({ status: 'ready', pages: 1, pageErrors: [] });

    pushDocsChange(repository, { write: { 'mkdocs.yml': 'nav: [' } });
    const failed = await commands.quire('docs', 'refresh', '--project', project, '--wait', '--json').then(
      () => null,
      (error: { code: number; stdout: string }) => error,
    );
    expect(failed?.code).toBe(2);
    expect(JSON.parse(failed!.stdout)).toMatchObject({ status: 'failed', commit: status.commit, error: expect.stringContaining('mkdocs.yml') });
    expect(await commands.quireFails('docs', 'status', '--project', 'prj_missing')).toContain('404');
  });

  it('without QUIRE_URL, calls the server at the PORT the server settings give', async () => {
    const beside = quireCommands({
      ...process.env,
      QUIRE_URL: '',
      QUIRE_PUBLIC_URL: '',
      HOST: '127.0.0.1',
      PORT: new URL(url).port,
      QUIRE_API_KEY: tenant.key,
    });
    const status = JSON.parse((await beside.quire('docs', 'status', '--project', tenant.project.id, '--json')).stdout);
    expect(status).toMatchObject({ status: expect.any(String), pageErrors: expect.any(Array) });
  });
});
