import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DocsBuilder } from '../../src/docs/index/build/builder.ts';
import { docsStatus, type DocsStatusView } from '../../src/docs/index/build/status.ts';
import { createTenant, grantAccess, testConfig, type Tenant } from '../support/app.ts';
import { quireCommands } from '../support/cli.ts';
import { buildContext, docsRepository } from '../support/docs-repositories.ts';
import { testDatabases } from '../support/storage.ts';

// The server's builder polls the queue every QUIRE_WORKER_POLL_MS (at least a second); this long covers it and a build.
const buildDeadlineMs = 8000;

/** Polls the project's docs state until it is `ready`; the last state seen when the deadline passes. */
async function readyWithin(storage: Parameters<typeof docsStatus>[0], projectId: string, deadlineMs: number): Promise<DocsStatusView> {
  const end = Date.now() + deadlineMs;
  let state = await docsStatus(storage, projectId);
  while (state.status !== 'ready' && Date.now() < end) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    state = await docsStatus(storage, projectId);
  }
  return state;
}

// The CLI is a process of its own: the server (here, its docs builder in this process) hears of a
// saved repository only through the database.
describe.each(testDatabases)('quire projects create|update with a repository, beside a running builder ($dialect)', (database) => {
  let storage: Awaited<ReturnType<typeof database.open>>;
  let builder: DocsBuilder;
  let tenant: Tenant;
  let repositories: string;
  let repository: string;
  /** PostgreSQL's suite keeps the builder's mirrors in a directory of its own (SQLite's is the database's). */
  let ownDataDir: string | null = null;
  let commands: ReturnType<typeof quireCommands>;

  beforeAll(async () => {
    storage = await database.open();
    repositories = mkdtempSync(join(tmpdir(), 'quire-cli-project-docs-'));
    repository = join(repositories, 'docs.git');
    docsRepository(repository, { write: { 'mkdocs.yml': 'site_name: Acme\nnav:\n  - Home: index.md\n', 'docs/index.md': '# Home\n\nHello.\n' } });
    if (!storage.location.env.QUIRE_DATA_DIR) ownDataDir = mkdtempSync(join(tmpdir(), 'quire-cli-project-docs-data-'));
    const dataDir = storage.location.env.QUIRE_DATA_DIR ?? ownDataDir!;
    const config = testConfig({ dataDir });
    tenant = await createTenant(storage, { project: { repository: null, ref: null } });
    await grantAccess(storage, config, tenant.orgId, { localDirectories: [repositories] });
    // As `quire serve` makes it (server/background.ts): polling at the workers' pace, listening on PostgreSQL.
    builder = new DocsBuilder({ ...buildContext(storage, config), leaseMs: 30_000, maxAttempts: 3, pollMs: Math.max(config.workerPollMs, 1000) });
    builder.start();
    commands = quireCommands({ ...process.env, ...storage.location.env, QUIRE_DATA_DIR: dataDir, LOG_LEVEL: 'silent' });
  });
  afterAll(async () => {
    await builder.stop();
    await storage.close();
    rmSync(repositories, { recursive: true, force: true });
    if (ownDataDir) rmSync(ownDataDir, { recursive: true, force: true });
  });

  it('update: the running builder builds the docs within seconds, and the CLI says so', async () => {
    const project = tenant.project.id;
    const updated = await commands.quire('projects', 'update', project, '--repository', repository, '--ref', 'main');
    expect(updated.stdout).toContain('Docs index: a build is queued. A running "quire serve" (or "quire worker") starts it within seconds');
    expect(updated.stdout).toContain(`"quire docs status --project ${project}" follows it.`);
    expect(await readyWithin(storage, project, buildDeadlineMs)).toMatchObject({ status: 'ready', pages: 1 });

    // Saving anything but the repository or ref requests nothing, and says nothing of the docs.
    const renamed = await commands.quire('projects', 'update', project, '--name', 'Handbook');
    expect(renamed.stdout).not.toContain('Docs index');
    expect(await docsStatus(storage, project)).toMatchObject({ status: 'ready' });
  });

  it('create with a repository: the same', async () => {
    const created = await commands.quire('projects', 'create', '--name', 'Guides', '--org', tenant.orgId, '--repository', repository, '--ref', 'main');
    const project = /Created project (prj_\w+)/.exec(created.stdout)?.[1];
    expect(created.stdout).toContain(`"quire docs status --project ${project}" follows it.`);
    expect(await readyWithin(storage, project!, buildDeadlineMs)).toMatchObject({ status: 'ready', pages: 1 });

    const bare = await commands.quire('projects', 'create', '--name', 'Notes', '--org', tenant.orgId);
    expect(bare.stdout).not.toContain('Docs index');
  });
});
