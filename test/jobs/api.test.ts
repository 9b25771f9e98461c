import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { createKey, revokeKey } from '../../src/accounts/keys.ts';
import { loadConfig } from '../../src/config/config.ts';
import type { Storage } from '../../src/storage/dialect.ts';
import { openStorage } from '../../src/storage/open.ts';
import { createTenant, testApp, testContext, type Tenant } from '../support/app.ts';
import { nextIteration, testDatabases, type TestLocation } from '../support/storage.ts';

describe.each(testDatabases)('agent-job API on $dialect', (database) => {
  let storage: Storage & { location: TestLocation };
  let app: FastifyInstance;
  let tenant: Tenant;
  let other: Tenant;

  beforeAll(async () => {
    storage = await database.open();
    app = await testApp(testContext(storage));
    tenant = await createTenant(storage);
    other = await createTenant(storage);
  });
  afterAll(async () => {
    await app.close();
    await storage.close();
  });

  const create = (t: Tenant, body: unknown, headers: Record<string, string> = {}) =>
    app.inject({ method: 'POST', url: `/v2/agent/${t.project.id}/job`, headers: { ...t.auth, ...headers }, payload: body as object });

  it('creates a job (201) with every field of the job object', async () => {
    const response = await create(tenant, { prompt: 'Document the /v2/agent API' });
    expect(response.statusCode).toBe(201);
    const job = response.json();
    expect(job).toEqual({
      id: expect.stringMatching(/^job_[0-9A-Z]{26}$/),
      status: 'active',
      source: { repository: 'https://github.com/acme/docs', ref: 'main' },
      model: 'test-model',
      prLink: null,
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      archivedAt: null,
      updatedAt: expect.any(String),
      error: null,
      origin: 'api',
      draft: false,
      problems: [],
    });
    expect(response.headers['ratelimit-limit']).toBe('100');
    expect(Number(response.headers['ratelimit-remaining'])).toBeLessThan(100);
    const fetched = await app.inject({ method: 'GET', url: `/v2/agent/${tenant.project.id}/job/${job.id}`, headers: tenant.auth });
    expect(fetched.statusCode).toBe(200);
    expect(fetched.json()).toEqual(job);
    // Asked for as a draft: the job says so before any run opened the pull request.
    expect((await create(tenant, { prompt: 'Draft it', draft: true })).json()).toMatchObject({ draft: true, problems: [] });
  });

  it('shows a repository address saved with credentials (before they were refused) without them', async () => {
    const own = await createTenant(storage);
    const job = (await create(own, { prompt: 'Old settings' })).json();
    await storage.db.updateTable('jobs').set({ repository: 'https://ci:ghp_saved_token@github.com/acme/docs' }).where('id', '=', job.id).execute();
    const fetched = (await app.inject({ method: 'GET', url: `/v2/agent/${own.project.id}/job/${job.id}`, headers: own.auth })).json();
    expect(fetched.source.repository).toBe('https://github.com/acme/docs');
  });

  it('lists jobs newest first with a cursor', async () => {
    const ids: string[] = [];
    for (let index = 0; index < 3; index++) ids.push((await create(other, { prompt: `job ${index}` })).json().id);
    const first = await app.inject({ method: 'GET', url: `/v2/agent/${other.project.id}/jobs?limit=2`, headers: other.auth });
    expect(first.statusCode).toBe(200);
    expect(first.json().jobs.map((job: { id: string }) => job.id)).toEqual([ids[2], ids[1]]);
    const second = await app.inject({
      method: 'GET',
      url: `/v2/agent/${other.project.id}/jobs?limit=2&cursor=${first.json().nextCursor}`,
      headers: other.auth,
    });
    expect(second.json()).toEqual({ jobs: [expect.objectContaining({ id: ids[0] })], nextCursor: null });
    const filtered = await app.inject({ method: 'GET', url: `/v2/agent/${other.project.id}/jobs?status=archived`, headers: other.auth });
    expect(filtered.json().jobs).toEqual([]);
  });

  it('keeps a transcript with the prompt', async () => {
    const job = (await create(tenant, { prompt: 'Fix the typo in intro.md' })).json();
    const response = await app.inject({ method: 'GET', url: `/v2/agent/${tenant.project.id}/job/${job.id}/messages`, headers: tenant.auth });
    expect(response.statusCode).toBe(200);
    expect(response.json().messages[0]).toMatchObject({ seq: 0, role: 'user', content: { text: 'Fix the typo in intro.md' } });
  });

  it('answers 409 to follow-ups and archiving while the job is active', async () => {
    const job = (await create(tenant, { prompt: 'one' })).json();
    const followUp = await app.inject({
      method: 'POST',
      url: `/v2/agent/${tenant.project.id}/job/${job.id}/message`,
      headers: tenant.auth,
      payload: { prompt: 'two' },
    });
    expect(followUp.statusCode).toBe(409);
    expect(followUp.json().code).toBe('conflict');
    const archive = await app.inject({ method: 'POST', url: `/v2/agent/${tenant.project.id}/job/${job.id}/archive`, headers: tenant.auth });
    expect(archive.statusCode).toBe(409);
  });

  it('reopens a completed job with a follow-up and archives it; archived jobs refuse follow-ups', async () => {
    const job = (await create(tenant, { prompt: 'first' })).json();
    await storage.db.updateTable('jobs').set({ status: 'completed', pr_link: 'https://github.com/acme/docs/pull/7' }).where('id', '=', job.id).execute();
    await storage.db.deleteFrom('job_queue').where('job_id', '=', job.id).execute();
    const completed = await app.inject({ method: 'GET', url: `/v2/agent/${tenant.project.id}/job/${job.id}`, headers: tenant.auth });
    expect(completed.json()).toMatchObject({ status: 'completed', prLink: 'https://github.com/acme/docs/pull/7' });

    const followUp = await app.inject({
      method: 'POST',
      url: `/v2/agent/${tenant.project.id}/job/${job.id}/message`,
      headers: tenant.auth,
      payload: { prompt: 'also fix the sidebar' },
    });
    expect(followUp.statusCode).toBe(200);
    expect(followUp.json()).toMatchObject({ status: 'active', prLink: null });
    expect(followUp.headers['ratelimit-remaining']).toBeDefined();
    const queued = await storage.db.selectFrom('job_queue').select('id').where('job_id', '=', job.id).execute();
    expect(queued).toHaveLength(1);

    await storage.db.updateTable('jobs').set({ status: 'completed' }).where('id', '=', job.id).execute();
    const archived = await app.inject({
      method: 'POST',
      url: `/v2/agent/${tenant.project.id}/job/${job.id}/archive`,
      headers: { ...tenant.auth, 'content-type': 'application/json' },
      payload: '',
    });
    expect(archived.statusCode).toBe(200);
    expect(archived.json()).toMatchObject({ status: 'archived', archivedAt: expect.any(String), prLink: 'https://github.com/acme/docs/pull/7' });
    const refused = await app.inject({
      method: 'POST',
      url: `/v2/agent/${tenant.project.id}/job/${job.id}/message`,
      headers: tenant.auth,
      payload: { prompt: 'more' },
    });
    expect(refused.statusCode).toBe(409);
    const transcript = await app.inject({ method: 'GET', url: `/v2/agent/${tenant.project.id}/job/${job.id}/messages`, headers: tenant.auth });
    expect(transcript.json().messages.map((message: { role: string }) => message.role)).toEqual(['user', 'user', 'event']);
  });

  it('answers 409 project_not_configured when the project has no repository', async () => {
    const bare = await createTenant(storage, { project: { repository: null } });
    const response = await create(bare, { prompt: 'hello' });
    expect(response.statusCode).toBe(409);
    expect(response.json()).toMatchObject({ code: 'project_not_configured', error: expect.stringContaining('repository') });
  });

  describe('authentication and tenancy', () => {
    it('needs a Bearer key (401 with WWW-Authenticate)', async () => {
      for (const authorization of [undefined, 'Basic abc', 'Bearer', 'Bearer quire_short', `Bearer quire_${'x'.repeat(40)}`, 'Bearer sk-0123456789']) {
        const response = await app.inject({ method: 'GET', url: `/v2/agent/${tenant.project.id}/jobs`, headers: authorization ? { authorization } : {} });
        expect(response.statusCode, String(authorization)).toBe(401);
        expect(response.headers['www-authenticate']).toMatch(/^Bearer/);
        expect(response.json()).toMatchObject({ code: 'unauthorized', error: expect.any(String) });
      }
    });

    it('refuses revoked and expired keys', async () => {
      const revoked = await createKey(storage.db, tenant.orgId);
      await revokeKey(storage.db, tenant.orgId, revoked.row.id);
      const expired = await createKey(storage.db, tenant.orgId, { expiresAt: new Date(Date.now() - 1000) });
      for (const key of [revoked.key, expired.key]) {
        const response = await app.inject({ method: 'GET', url: `/v2/agent/${tenant.project.id}/jobs`, headers: { authorization: `Bearer ${key}` } });
        expect(response.statusCode).toBe(401);
      }
    });

    it('answers 403 when the key lacks the scope', async () => {
      const readOnly = await createKey(storage.db, tenant.orgId, { scopes: ['read'] });
      const response = await app.inject({
        method: 'POST',
        url: `/v2/agent/${tenant.project.id}/job`,
        headers: { authorization: `Bearer ${readOnly.key}` },
        payload: { prompt: 'x' },
      });
      expect(response.statusCode).toBe(403);
      expect(response.json().code).toBe('forbidden');
    });

    it('answers 404, never data, for another organization’s project and jobs', async () => {
      const job = (await create(tenant, { prompt: 'private' })).json();
      const urls = [
        ['GET', `/v2/agent/${tenant.project.id}/job/${job.id}`],
        ['GET', `/v2/agent/${tenant.project.id}/jobs`],
        ['GET', `/v2/agent/${tenant.project.id}/job/${job.id}/messages`],
        ['POST', `/v2/agent/${tenant.project.id}/job/${job.id}/archive`],
        ['GET', `/v2/agent/${other.project.id}/job/${job.id}`],
      ] as const;
      for (const [method, url] of urls) {
        const response = await app.inject({ method, url, headers: other.auth });
        expect(response.statusCode, url).toBe(404);
        expect(response.body).not.toContain('private');
      }
      const created = await create({ ...tenant, auth: other.auth }, { prompt: 'x' });
      expect(created.statusCode).toBe(404);
    });

    it('limits a key restricted to some projects to those', async () => {
      const limited = await createKey(storage.db, tenant.orgId, { projectIds: ['prj_00000000000000000000000000'] });
      const response = await app.inject({ method: 'GET', url: `/v2/agent/${tenant.project.id}/jobs`, headers: { authorization: `Bearer ${limited.key}` } });
      expect(response.statusCode).toBe(404);
    });
  });

  describe('bad input', () => {
    const cases: [string, Record<string, string>, string | undefined][] = [
      ['malformed JSON', { 'content-type': 'application/json' }, '{"prompt": '],
      ['wrong content type', { 'content-type': 'text/plain' }, 'prompt=hi'],
      ['form body', { 'content-type': 'application/x-www-form-urlencoded' }, 'prompt=hi'],
      ['empty prompt', { 'content-type': 'application/json' }, '{"prompt":""}'],
      ['missing prompt', { 'content-type': 'application/json' }, '{}'],
      ['prompt not a string', { 'content-type': 'application/json' }, '{"prompt":42}'],
      ['oversized prompt', { 'content-type': 'application/json' }, JSON.stringify({ prompt: 'x'.repeat(20_001) })],
      ['unknown field', { 'content-type': 'application/json' }, '{"prompt":"hi","model":"gpt-5"}'],
      ['array body', { 'content-type': 'application/json' }, '["hi"]'],
      ['no body', {}, undefined],
      ['prototype pollution', { 'content-type': 'application/json' }, '{"prompt":"hi","__proto__":{"admin":true}}'],
    ];
    it.each(cases)('answers 400 invalid_request to %s and creates nothing', async (_name, headers, payload) => {
      const before = await storage.db
        .selectFrom('jobs')
        .select((eb) => eb.fn.countAll<number>().as('count'))
        .executeTakeFirstOrThrow();
      const response = await app.inject({ method: 'POST', url: `/v2/agent/${tenant.project.id}/job`, headers: { ...tenant.auth, ...headers }, payload });
      expect(response.statusCode).toBe(400);
      expect(response.json()).toMatchObject({ code: 'invalid_request', error: expect.any(String) });
      const after = await storage.db
        .selectFrom('jobs')
        .select((eb) => eb.fn.countAll<number>().as('count'))
        .executeTakeFirstOrThrow();
      expect(Number(after.count)).toBe(Number(before.count));
    });

    it('answers 413 to a body over the limit', async () => {
      const response = await app.inject({
        method: 'POST',
        url: `/v2/agent/${tenant.project.id}/job`,
        headers: { ...tenant.auth, 'content-type': 'application/json' },
        payload: JSON.stringify({ prompt: 'x'.repeat(2_000_000) }),
      });
      expect(response.statusCode).toBe(413);
      expect(response.json().code).toBe('payload_too_large');
    });

    it('answers 404 to malformed or unknown ids', async () => {
      for (const url of [
        `/v2/agent/${tenant.project.id}/job/nope`,
        `/v2/agent/${tenant.project.id}/job/job_00000000000000000000000000`,
        `/v2/agent/prj_bad/job/x`,
        `/v2/agent/${'%27%20or%201=1--'}/jobs`,
      ]) {
        const response = await app.inject({ method: 'GET', url, headers: tenant.auth });
        expect(response.statusCode, url).toBe(404);
        expect(response.json().code).toBe('not_found');
      }
    });

    it('answers 400 to bad list parameters', async () => {
      for (const query of ['limit=0', 'limit=101', 'limit=1.5', 'limit=abc', 'status=done', 'cursor=xyz', 'color=red']) {
        const response = await app.inject({ method: 'GET', url: `/v2/agent/${tenant.project.id}/jobs?${query}`, headers: tenant.auth });
        expect(response.statusCode, query).toBe(400);
      }
    });
  });

  describe('polling a job', () => {
    const get = (t: Tenant, id: string) => app.inject({ method: 'GET', url: `/v2/agent/${t.project.id}/job/${id}`, headers: t.auth });
    const newJob = async () => (await create(tenant, { prompt: 'Poll me' })).json().id as string;

    it('sees every change this process makes at once', async () => {
      const id = await newJob();
      expect((await get(tenant, id)).json().status).toBe('active');
      expect((await get(tenant, id)).json().status).toBe('active');
      await storage.db.updateTable('jobs').set({ status: 'completed', pr_link: 'https://github.com/acme/docs/pull/7' }).where('id', '=', id).execute();
      expect((await get(tenant, id)).json()).toMatchObject({ status: 'completed', prLink: 'https://github.com/acme/docs/pull/7' });
      const archived = await app.inject({ method: 'POST', url: `/v2/agent/${tenant.project.id}/job/${id}/archive`, headers: tenant.auth });
      expect(archived.statusCode).toBe(200);
      expect((await get(tenant, id)).json()).toEqual(archived.json());
    });

    it('sees a change committed by another process (another connection)', async () => {
      const id = await newJob();
      expect((await get(tenant, id)).json().status).toBe('active');
      const elsewhere = await openStorage(loadConfig(storage.location.env), { migrate: false });
      try {
        await elsewhere.db.updateTable('jobs').set({ status: 'failed', error: 'Interrupted three times.' }).where('id', '=', id).execute();
      } finally {
        await elsewhere.close();
      }
      await nextIteration();
      expect((await get(tenant, id)).json()).toMatchObject({ status: 'failed', error: 'Interrupted three times.' });
    });

    it('never answers another organization from a job read before', async () => {
      const id = await newJob();
      expect((await get(tenant, id)).statusCode).toBe(200);
      expect((await get(other, id)).statusCode).toBe(404);
      const crossed = await app.inject({ method: 'GET', url: `/v2/agent/${tenant.project.id}/job/${id}`, headers: other.auth });
      expect(crossed.statusCode).toBe(404);
    });
  });
});

describe('request caches of keys and projects', () => {
  it('refuses a key revoked in this process at once, even right after it was used', async () => {
    const storage = await testDatabases[0].open();
    const app = await testApp(testContext(storage, { config: { accountCacheMs: 60_000 } }));
    const tenant = await createTenant(storage);
    const url = `/v2/agent/${tenant.project.id}/jobs`;
    expect((await app.inject({ method: 'GET', url, headers: tenant.auth })).statusCode).toBe(200);
    const [row] = await storage.db.selectFrom('api_keys').select('id').where('org_id', '=', tenant.orgId).execute();
    await revokeKey(storage.db, tenant.orgId, row.id);
    expect((await app.inject({ method: 'GET', url, headers: tenant.auth })).statusCode).toBe(401);
    await app.close();
    await storage.close();
  });
});
