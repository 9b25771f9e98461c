import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeGaps } from '../../src/docs/gaps/closure.ts';
import { refreshAllGaps } from '../../src/docs/gaps/refresh-loop.ts';
import { refreshGaps } from '../../src/docs/gaps/service.ts';
import type { AppContext } from '../../src/http/context.ts';
import type { Storage } from '../../src/storage/dialect.ts';
import { createTenant, grantAccess, testApp, testContext, type Tenant } from '../support/app.ts';
import { buildContext, buildThroughQueue, docsRepository } from '../support/docs-repositories.ts';
import { git } from '../support/git-repositories.ts';
import { testDatabases } from '../support/storage.ts';
import type { Static } from 'typebox';
import type { Gap } from '../../src/docs/gaps/schemas.ts';

const chrome = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';
const claudeBot = 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ClaudeBot/1.0; +claudebot@anthropic.com)';
const files = {
  'mkdocs.yml': 'site_name: Acme\nnav:\n  - Home: index.md\n  - Limits: limits.md\n',
  'docs/index.md': '# Home\n\nWelcome.\n',
  'docs/limits.md': '# Limits\n\nSome limits apply.\n',
};

/** A gap as the API answers it (the route's own response schema). */
type GapJson = Static<typeof Gap>;

describe.each(testDatabases)('docs gaps on $dialect', (database) => {
  let storage: Storage;
  let context: AppContext;
  let app: FastifyInstance;
  let dataDir: string;
  let repositories: string;
  let counter = 0;

  beforeAll(async () => {
    storage = await database.open();
    dataDir = mkdtempSync(join(tmpdir(), 'quire-gaps-data-'));
    repositories = mkdtempSync(join(tmpdir(), 'quire-gaps-repos-'));
    context = testContext(storage, { config: { dataDir, analyticsRateLimit: 10_000, gapOpenedVisitors: 3, webhooksAllowPrivate: true } });
    app = await testApp(context);
  });
  afterAll(async () => {
    await app.close();
    await storage.close();
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(repositories, { recursive: true, force: true });
  });

  async function tenantWithRepository() {
    const path = join(repositories, `repo-${counter++}.git`);
    docsRepository(path, { write: files });
    const tenant = await createTenant(storage, { project: { repository: path, ref: 'main' } });
    await grantAccess(storage, context.config, tenant.orgId, { localDirectories: [repositories] });
    return { tenant, path };
  }

  /**
   * A list's range ends now, exclusive: evidence stamped in the very millisecond of the list that follows
   * would fall outside it, so each write returns only once the clock has moved on.
   */
  const clockMovesOn = async () => {
    const stamp = Date.now();
    while (Date.now() <= stamp) await new Promise((resolve) => setTimeout(resolve, 1));
  };
  const post = async (tenant: Tenant, events: unknown[]) => {
    const response = await app.inject({ method: 'POST', url: `/v1/analytics/${tenant.project.id}/events`, headers: tenant.auth, payload: { events } });
    expect(response.statusCode).toBe(202);
    expect(response.json()).toMatchObject({ rejected: 0 });
    await clockMovesOn();
  };
  const list = async (tenant: Tenant, query = '') => {
    const response = await app.inject({ method: 'GET', url: `/v1/analytics/${tenant.project.id}/gaps${query}`, headers: tenant.auth });
    expect(response.statusCode, response.body).toBe(200);
    return response.json() as { gaps: GapJson[]; hasMore: boolean };
  };
  const search = (query: string, ip: string, userAgent = chrome) => ({ kind: 'search', query, hits: 0, ip, userAgent });
  /** An unanswered assistant question, stored as the assistant stores its turns. */
  async function unanswered(tenant: Tenant, query: string, fingerprint: string) {
    const thread = `thr_${counter++}_${Date.now()}`;
    await storage.db
      .insertInto('assistant_threads')
      .values({ id: thread, project_id: tenant.project.id, key_hash: 'k', fingerprint, created_at: Date.now() })
      .execute();
    await storage.db
      .insertInto('assistant_turns')
      .values({
        id: `trn_${thread}`,
        thread_id: thread,
        project_id: tenant.project.id,
        query,
        response: 'I could not find this in the docs.',
        response_type: 'answer',
        resolution: 'unanswered',
        sources: '[]',
        query_category: null,
        current_path: null,
        caller: 'web',
        created_at: Date.now(),
      })
      .execute();
    await clockMovesOn();
  }

  async function seed(tenant: Tenant) {
    await post(tenant, [
      search('rate limit', '198.51.100.1'),
      search('rate limits', '198.51.100.2'),
      search('ratelimit', '216.73.216.4', claudeBot),
      search('What are the rate limits?', '198.51.100.4'),
      { kind: 'search', query: 'install', hits: 3, ip: '198.51.100.5', userAgent: chrome },
      { kind: 'feedback', source: 'thumbs_only', path: '/index', helpful: false, comment: 'Too short to be useful', ip: '198.51.100.6', userAgent: chrome },
      { kind: 'feedback', source: 'thumbs_only', path: '/index', helpful: true, ip: '198.51.100.7', userAgent: chrome },
      ...['10', '11', '12', '13'].map((last) => ({ path: '/old/api', status: 404, ip: `198.51.100.${last}`, userAgent: chrome })),
      ...Array.from({ length: 30 }, () => ({ path: '/crawl/deep', status: 404, ip: '216.73.216.5', userAgent: claudeBot })),
    ]);
    await unanswered(tenant, 'what are the rate limits', 'fp-1');
  }

  it('groups every source into gaps ranked by distinct visitors, a 404 many hit above one a crawler hammers', async () => {
    const { tenant } = await tenantWithRepository();
    await seed(tenant);
    const { gaps, hasMore } = await list(tenant);
    expect(hasMore).toBe(false);
    expect(gaps.map((gap) => [gap.kind, gap.visitors.total])).toEqual([['missing', 5], ['broken', 4], expect.anything(), expect.anything()]);
    const [rate, oldApi] = gaps;
    expect(rate).toMatchObject({
      status: 'open',
      title: 'No answer for “what are the rate limits”',
      evidence: { unanswered: 1, searches: 4, feedback: 0, notFound: 0 },
      visitors: { human: 4, ai: 1, total: 5 },
      jobId: null,
      after: null,
    });
    expect([...rate!.examples].sort()).toEqual(['rate limit', 'rate limits', 'ratelimit', 'what are the rate limits'].sort());
    expect(oldApi).toMatchObject({
      title: '/old/api is not found (404)',
      evidence: { notFound: 4 },
      visitors: { human: 4, ai: 0, total: 4 },
      paths: ['/old/api'],
    });
    const crawl = gaps.find((gap) => gap.paths.includes('/crawl/deep'))!;
    expect(crawl).toMatchObject({ kind: 'broken', evidence: { notFound: 30 }, visitors: { human: 0, ai: 1, total: 1 } });
    const page = gaps.find((gap) => gap.paths.includes('/index'))!;
    expect(page).toMatchObject({ kind: 'unclear', evidence: { feedback: 1 }, examples: ['Too short to be useful'] });
    // Ids are stable across reads, and a page of one continues with the next.
    expect((await list(tenant)).gaps.map((gap) => gap.id)).toEqual(gaps.map((gap) => gap.id));
    const second = await list(tenant, '?limit=1&offset=1');
    expect(second).toEqual({ gaps: [expect.objectContaining({ id: oldApi!.id })], hasMore: true });
  });

  it('reads without writing: two API processes answer the same ids, and a write keeps the id a read gave', async () => {
    const { tenant } = await tenantWithRepository();
    await seed(tenant);
    const second = await testApp(testContext(storage, { config: { dataDir, analyticsRateLimit: 10_000 } }));
    try {
      const stored = async () => ({
        gaps: (await storage.db.selectFrom('docs_gaps').select('id').where('project_id', '=', tenant.project.id).execute()).length,
        keys: (await storage.db.selectFrom('docs_gap_keys').select('key').where('project_id', '=', tenant.project.id).execute()).length,
      });
      const readOn = async (on: FastifyInstance) => {
        const response = await on.inject({ method: 'GET', url: `/v1/analytics/${tenant.project.id}/gaps`, headers: tenant.auth });
        expect(response.statusCode).toBe(200);
        return (response.json() as { gaps: GapJson[] }).gaps.map((gap) => gap.id);
      };
      const [first, other] = await Promise.all([readOn(app), readOn(second)]);
      expect(first).toHaveLength(4);
      expect(other).toEqual(first);
      expect(await stored()).toEqual({ gaps: 0, keys: 0 });
      // A key sorted before its first joins the first gap before anything is stored: a read derives another id,
      // but a write naming the id an earlier read gave keeps it.
      await post(tenant, [search('limits rate', '198.51.100.30')]);
      const moved = await readOn(second);
      expect(moved[0]).not.toBe(first[0]);
      expect(moved.slice(1)).toEqual(first.slice(1));
      const dismissed = await app.inject({
        method: 'PATCH',
        url: `/v1/analytics/${tenant.project.id}/gaps/${first[0]}`,
        headers: tenant.auth,
        payload: { status: 'dismissed' },
      });
      expect(dismissed.statusCode, dismissed.body).toBe(200);
      expect(dismissed.json()).toMatchObject({ id: first[0], status: 'dismissed', evidence: { searches: 5 } });
      expect(await readOn(second)).toEqual(first.slice(1));
      await refreshGaps(context, tenant.project);
      expect(await readOn(app)).toEqual(first.slice(1));
      expect(await stored()).toEqual({ gaps: 4, keys: expect.any(Number) });
    } finally {
      await second.close();
    }
  });

  it('refuses bad input with 400 and answers another organization’s project and gaps as not found', async () => {
    const { tenant } = await tenantWithRepository();
    const other = await createTenant(storage);
    await seed(tenant);
    const [gap] = (await list(tenant)).gaps;
    for (const query of ['?status=closed', '?limit=0', '?limit=101', '?dateFrom=yesterday', '?offset=-1', '?extra=1']) {
      const response = await app.inject({ method: 'GET', url: `/v1/analytics/${tenant.project.id}/gaps${query}`, headers: tenant.auth });
      expect(response.statusCode, query).toBe(400);
    }
    const patch = (target: Tenant, projectId: string, gapId: string, payload: Record<string, unknown>) =>
      app.inject({ method: 'PATCH', url: `/v1/analytics/${projectId}/gaps/${gapId}`, headers: target.auth, payload });
    expect((await patch(tenant, tenant.project.id, gap!.id, { status: 'fixed' })).statusCode).toBe(400);
    expect((await patch(other, tenant.project.id, gap!.id, { status: 'dismissed' })).statusCode).toBe(404);
    expect((await patch(other, other.project.id, gap!.id, { status: 'dismissed' })).statusCode).toBe(404);
    const job = await app.inject({ method: 'POST', url: `/v1/analytics/${other.project.id}/gaps/${gap!.id}/job`, headers: other.auth });
    expect(job.statusCode).toBe(404);
    expect((await app.inject({ method: 'GET', url: `/v1/analytics/${tenant.project.id}/gaps`, headers: other.auth })).statusCode).toBe(404);
    const readOnly = await createTenant(storage, { scopes: ['read'] });
    const refused = await app.inject({ method: 'POST', url: `/v1/analytics/${readOnly.project.id}/gaps/${gap!.id}/job`, headers: readOnly.auth });
    expect(refused.statusCode).toBe(403);
    expect((await list(tenant)).gaps[0]).toMatchObject({ id: gap!.id, status: 'open' });
  });

  it('refreshes in the docs gaps loop only the projects whose evidence changed since the last round', async () => {
    const tenant = await createTenant(storage);
    await seed(tenant);
    const storedGaps = async () => (await storage.db.selectFrom('docs_gaps').select('id').where('project_id', '=', tenant.project.id).execute()).length;
    const marks = new Map<string, string>();
    await refreshAllGaps(context, marks);
    expect(await storedGaps()).toBeGreaterThan(0);
    // Stored gaps gone and no new evidence: the next round leaves the project alone.
    await storage.db.deleteFrom('docs_gaps').where('project_id', '=', tenant.project.id).execute();
    await refreshAllGaps(context, marks);
    expect(await storedGaps()).toBe(0);
    // Any new evidence (here an unanswered question) brings the project back in.
    await unanswered(tenant, 'how do I rotate keys', 'fp-rotate');
    await refreshAllGaps(context, marks);
    expect(await storedGaps()).toBeGreaterThan(0);
    await storage.db.deleteFrom('docs_gaps').where('project_id', '=', tenant.project.id).execute();
    await post(tenant, [search('rotate keys', '198.51.100.40')]);
    await refreshAllGaps(context, marks);
    expect(await storedGaps()).toBeGreaterThan(0);
  });

  it('hides a dismissed gap until its evidence doubles, and reopens one on request', async () => {
    const { tenant } = await tenantWithRepository();
    await seed(tenant);
    const oldApi = (await list(tenant)).gaps[1]!;
    const dismissed = await app.inject({
      method: 'PATCH',
      url: `/v1/analytics/${tenant.project.id}/gaps/${oldApi.id}`,
      headers: tenant.auth,
      payload: { status: 'dismissed' },
    });
    expect(dismissed.statusCode).toBe(200);
    expect(dismissed.json()).toMatchObject({ id: oldApi.id, status: 'dismissed' });
    expect((await list(tenant)).gaps.map((gap) => gap.id)).not.toContain(oldApi.id);
    expect((await list(tenant, '?status=dismissed')).gaps.map((gap) => gap.id)).toEqual([oldApi.id]);
    await post(
      tenant,
      ['20', '21', '22'].map((last) => ({ path: '/old/api', status: 404, ip: `198.51.100.${last}`, userAgent: chrome })),
    );
    expect((await list(tenant)).gaps.map((gap) => gap.id)).not.toContain(oldApi.id);
    await post(tenant, [{ path: '/old/api', status: 404, ip: '198.51.100.23', userAgent: chrome }]);
    expect((await list(tenant)).gaps.find((gap) => gap.id === oldApi.id)).toMatchObject({ status: 'open', evidence: { notFound: 8 } });
    await app.inject({ method: 'PATCH', url: `/v1/analytics/${tenant.project.id}/gaps/${oldApi.id}`, headers: tenant.auth, payload: { status: 'dismissed' } });
    const reopened = await app.inject({
      method: 'PATCH',
      url: `/v1/analytics/${tenant.project.id}/gaps/${oldApi.id}`,
      headers: tenant.auth,
      payload: { status: 'open' },
    });
    expect(reopened.json()).toMatchObject({ status: 'open' });
  });

  it('turns a gap into a job whose prompt carries its evidence, and marks it fixed once the index builds a commit with the job’s change', async () => {
    const { tenant, path } = await tenantWithRepository();
    const hook = await app.inject({
      method: 'POST',
      url: `/v2/agent/${tenant.project.id}/webhooks`,
      headers: tenant.auth,
      payload: { url: 'http://127.0.0.1:9/hook' },
    });
    expect(hook.statusCode).toBe(201);
    await seed(tenant);
    const [rate] = (await list(tenant)).gaps;
    const deliveries = async (type: string) =>
      (await storage.db.selectFrom('webhook_deliveries').select('payload').where('project_id', '=', tenant.project.id).where('type', '=', type).execute()).map(
        (row) => JSON.parse(row.payload) as { data: { gap: GapJson } },
      );
    // Two gaps reached three visitors: the refresh (the "docs gaps" loop) announces each once, however often it runs.
    expect(await deliveries('gap.opened')).toEqual([]);
    await refreshGaps(context, tenant.project);
    await refreshGaps(context, tenant.project);
    expect((await deliveries('gap.opened')).map((delivery) => delivery.data.gap.id).sort()).toEqual([rate!.id, (await list(tenant)).gaps[1]!.id].sort());

    const created = await app.inject({ method: 'POST', url: `/v1/analytics/${tenant.project.id}/gaps/${rate!.id}/job`, headers: tenant.auth });
    expect(created.statusCode, created.body).toBe(201);
    const jobId = (created.json() as { id: string }).id;
    const job = await storage.db.selectFrom('jobs').selectAll().where('id', '=', jobId).executeTakeFirstOrThrow();
    expect(job.prompt).toContain('No answer for “what are the rate limits”');
    expect(job.prompt).toContain('4 searches with no results');
    expect(job.prompt).toContain('1 assistant question left unanswered');
    expect(job.prompt).toContain('5 distinct visitors (4 people, 1 AI agents)');
    expect(job.prompt).toContain('- what are the rate limits\n');
    expect(job.origin).toBe('gap');
    expect(job.prompt).toContain('smallest change');
    expect(job.prompt).toContain('do not invent facts');
    expect((await list(tenant)).gaps[0]).toMatchObject({ id: rate!.id, status: 'in_progress', jobId, prLink: null });

    const build = {
      ...buildContext(storage, context.config),
      afterBuild: (projectId: string, snapshot: Parameters<typeof closeGaps>[2]) =>
        closeGaps({ ...context, logger: pino({ level: 'silent' }) }, projectId, snapshot),
    };
    expect(await buildThroughQueue(build, tenant.project.id)).toMatchObject({ ok: true });

    // The job's work: a branch with the change, pushed, and its pull request.
    const work = mkdtempSync(join(tmpdir(), 'quire-gaps-work-'));
    git(work, 'clone', '--quiet', '--branch', 'main', path, '.');
    git(work, 'checkout', '--quiet', '-b', job.branch);
    git(work, 'commit', '--quiet', '--allow-empty', '--message', 'Document the rate limits');
    git(work, 'push', '--quiet', 'origin', job.branch);
    await storage.db.updateTable('jobs').set({ status: 'completed', pr_link: 'https://example.test/pull/1' }).where('id', '=', jobId).execute();
    // A commit on main that does not contain the change: built, the gap stays in progress.
    git(work, 'checkout', '--quiet', 'main');
    git(work, 'commit', '--quiet', '--allow-empty', '--message', 'Unrelated');
    git(work, 'push', '--quiet', 'origin', 'main');
    expect(await buildThroughQueue(build, tenant.project.id)).toMatchObject({ ok: true });
    expect((await list(tenant)).gaps[0]).toMatchObject({ status: 'in_progress', prLink: 'https://example.test/pull/1', fixedAt: null });

    // The pull request is merged: the next build of main contains the job's commit.
    git(work, 'merge', '--quiet', '--no-ff', '--no-edit', job.branch);
    git(work, 'push', '--quiet', 'origin', 'main');
    rmSync(work, { recursive: true, force: true });
    expect(await buildThroughQueue(build, tenant.project.id)).toMatchObject({ ok: true });
    const fixed = (await list(tenant)).gaps.find((gap) => gap.id === rate!.id)!;
    expect(fixed).toMatchObject({
      status: 'fixed',
      evidence: { unanswered: 1, searches: 4 },
      visitors: { total: 5 },
      after: { unanswered: 0, searches: 0, feedback: 0, notFound: 0 },
    });
    expect(Date.parse(fixed.fixedAt!)).toBeGreaterThan(0);
    expect((await deliveries('gap.fixed')).map((delivery) => delivery.data.gap)).toEqual([expect.objectContaining({ id: rate!.id, status: 'fixed' })]);

    // Evidence after the fix is counted in `after`; the frozen evidence stays.
    await new Promise((resolve) => setTimeout(resolve, 5));
    await post(tenant, [search('rate limits', '198.51.100.40')]);
    expect((await list(tenant)).gaps.find((gap) => gap.id === rate!.id)).toMatchObject({
      evidence: { searches: 4 },
      after: { searches: 1, unanswered: 0 },
    });
    const refused = await app.inject({ method: 'POST', url: `/v1/analytics/${tenant.project.id}/gaps/${rate!.id}/job`, headers: tenant.auth });
    expect(refused.statusCode).toBe(409);
  }, 120_000);
});
