import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Config } from '../../src/config/config.ts';
import { DocsBuilder } from '../../src/docs/index/build/builder.ts';
import { pollSources } from '../../src/docs/index/build/poll.ts';
import { gitSource, type SourceAccess } from '../../src/docs/index/build/source.ts';
import { docsStatus } from '../../src/docs/index/build/status.ts';
import { claimBuild } from '../../src/docs/index/queue/claim.ts';
import { completeBuild } from '../../src/docs/index/queue/complete.ts';
import { enqueueBuild } from '../../src/docs/index/queue/enqueue.ts';
import type { Storage } from '../../src/storage/dialect.ts';
import { createTenant, grantAccess, testConfig } from '../support/app.ts';
import { buildContext, buildThroughQueue, docsRepository, pushDocsChange } from '../support/docs-repositories.ts';
import { testDatabases } from '../support/storage.ts';

const files = { 'mkdocs.yml': 'site_name: Acme\nnav:\n  - Home: index.md\n', 'docs/index.md': '# Home\n\nWelcome.\n' };
const lease = { leaseMs: 1000, maxAttempts: 2 };

describe.each(testDatabases)('docs build queue and builders on $dialect', (database) => {
  let storage: Storage;
  let dataDir: string;
  let repositories: string;
  let config: Config;
  let counter = 0;

  beforeAll(async () => {
    storage = await database.open();
    dataDir = mkdtempSync(join(tmpdir(), 'quire-queue-data-'));
    repositories = mkdtempSync(join(tmpdir(), 'quire-queue-repos-'));
    config = testConfig({ dataDir });
  });
  afterAll(async () => {
    await storage.close();
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(repositories, { recursive: true, force: true });
  });

  async function project() {
    const path = join(repositories, `repo-${counter++}.git`);
    const commit = docsRepository(path, { write: files });
    const tenant = await createTenant(storage, { project: { repository: path, ref: 'main' } });
    await grantAccess(storage, config, tenant.orgId, { localDirectories: [repositories] });
    return { id: tenant.project.id, path, commit };
  }
  const row = (projectId: string) => storage.db.selectFrom('docs_builds').selectAll().where('project_id', '=', projectId).executeTakeFirstOrThrow();

  it('coalesces requests: one build queued per project, one more when a request comes while it runs', async () => {
    const { id } = await project();
    await enqueueBuild(storage, id);
    await enqueueBuild(storage, id);
    expect(await row(id)).toMatchObject({ requested_seq: 1, finished_seq: 0 });
    const claimed = (await claimBuild(storage, 'wrk_a', lease))!;
    expect(claimed).toMatchObject({ projectId: id, seq: 1, attempt: 1 });
    expect(await claimBuild(storage, 'wrk_b', lease)).toBeNull();
    await enqueueBuild(storage, id);
    await enqueueBuild(storage, id);
    await completeBuild(storage, claimed, 'wrk_a', { commit: 'c1', docsPath: '', pageErrors: [] });
    expect(await row(id)).toMatchObject({ requested_seq: 2, finished_seq: 1 });
    expect((await docsStatus(storage, id)).status).toBe('building');
    const again = (await claimBuild(storage, 'wrk_b', lease))!;
    await completeBuild(storage, again, 'wrk_b', { commit: 'c1', docsPath: '', pageErrors: [] });
    expect(await claimBuild(storage, 'wrk_b', lease)).toBeNull();
  });

  it('resumes a crashed build in another builder once its lease expired, and gives up after the attempts', async () => {
    const { id, commit } = await project();
    await enqueueBuild(storage, id);
    const now = Date.now();
    const crashed = (await claimBuild(storage, 'wrk_dead', lease, now))!;
    expect(crashed.attempt).toBe(1);
    expect(await claimBuild(storage, 'wrk_alive', lease, now + 500)).toBeNull();
    // A builder that keeps running finds the request once the dead one's lease lapsed.
    const builder = new DocsBuilder({ ...buildContext(storage, config), ...lease, pollMs: 100 });
    builder.start();
    try {
      await expect.poll(async () => (await docsStatus(storage, id)).status, { timeout: 15_000, interval: 100 }).toBe('ready');
      expect(await docsStatus(storage, id)).toMatchObject({ commit, pages: 1 });
      expect((await row(id)).attempts).toBe(0);
    } finally {
      await builder.stop();
    }

    const other = await project();
    await enqueueBuild(storage, other.id);
    await claimBuild(storage, 'wrk_dead', lease, now);
    await claimBuild(storage, 'wrk_dead', lease, now + 2000);
    expect(await claimBuild(storage, 'wrk_alive', lease, now + 4000)).toBeNull();
    expect(await docsStatus(storage, other.id)).toMatchObject({ status: 'failed', error: expect.stringContaining('interrupted 2 times') });
  });

  it('polls sources: a moved ref requests a build, an unchanged one does not, an unreachable one backs off', async () => {
    const { id, path } = await project();
    await buildThroughQueue(buildContext(storage, config), id);
    const asked: string[] = [];
    const counting: SourceAccess = {
      ...gitSource,
      async remoteCommit(options) {
        asked.push(options.repository);
        return gitSource.remoteCommit(options);
      },
    };
    const poll = (now: number) => pollSources({ ...buildContext(storage, config), source: counting, onRequested: () => {} }, now);
    const start = Date.now();
    await poll(start);
    expect((await row(id)).requested_seq).toBe((await row(id)).finished_seq);
    pushDocsChange(path, { write: { 'docs/index.md': '# Home\n\nMoved on.\n' } });
    await poll(start + 1000);
    expect(asked.filter((repository) => repository.endsWith(path.slice(-12)))).toHaveLength(1);
    await poll(start + config.docsPollSeconds * 1000);
    expect((await row(id)).requested_seq).toBeGreaterThan((await row(id)).finished_seq);

    rmSync(path, { recursive: true, force: true });
    await storage.db
      .updateTable('docs_builds')
      .set({ finished_seq: (await row(id)).requested_seq, poll_after: null })
      .where('project_id', '=', id)
      .execute();
    const later = start + 10 * config.docsPollSeconds * 1000;
    await poll(later);
    expect(await row(id)).toMatchObject({ poll_failures: 1, poll_after: later + 2 * config.docsPollSeconds * 1000 });
    await poll(later + config.docsPollSeconds * 1000);
    expect((await row(id)).poll_failures).toBe(1);
  });
});
