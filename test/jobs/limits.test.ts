import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import type { Storage } from '../../src/storage/dialect.ts';
import { createTenant, testApp, testContext, type Tenant } from '../support/app.ts';
import { testDatabases } from '../support/storage.ts';

describe.each(testDatabases)('job rate limit and idempotency on $dialect', (database) => {
  let storage: Storage;
  let app: FastifyInstance;
  let base: string;

  beforeAll(async () => {
    storage = await database.open();
    app = await testApp(testContext(storage));
    await app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
  });
  afterAll(async () => {
    await app.close();
    await storage.close();
  });

  type Reply = Omit<Response, 'json'> & { json(): Promise<any> }; // eslint-disable-line @typescript-eslint/no-explicit-any
  const post = (tenant: Tenant, path: string, body: unknown, headers: Record<string, string> = {}): Promise<Reply> =>
    fetch(`${base}/v2/agent/${tenant.project.id}${path}`, {
      method: 'POST',
      headers: { ...tenant.auth, 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });

  it('accepts exactly 100 of 150 concurrent creates and refuses the rest with 429 and headers', async () => {
    const tenant = await createTenant(storage);
    const responses = await Promise.all(Array.from({ length: 150 }, (_, index) => post(tenant, '/job', { prompt: `job ${index}` })));
    const statuses = responses.map((response) => response.status);
    expect(statuses.filter((status) => status === 201)).toHaveLength(100);
    expect(statuses.filter((status) => status === 429)).toHaveLength(50);
    const refused = responses.find((response) => response.status === 429)!;
    expect(refused.headers.get('ratelimit-limit')).toBe('100');
    expect(refused.headers.get('ratelimit-remaining')).toBe('0');
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(3500);
    expect(retryAfter).toBeLessThanOrEqual(3600);
    expect(refused.headers.get('ratelimit-reset')).toBe(String(retryAfter));
    expect(await refused.json()).toMatchObject({ code: 'rate_limited', error: expect.stringContaining('Try again in') });
    const remaining = responses.filter((response) => response.status === 201).map((response) => Number(response.headers.get('ratelimit-remaining')));
    expect(remaining.sort((a, b) => a - b)).toEqual(Array.from({ length: 100 }, (_, index) => index));
    const jobs = await storage.db
      .selectFrom('jobs')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .where('project_id', '=', tenant.project.id)
      .executeTakeFirstOrThrow();
    expect(Number(jobs.count)).toBe(100);
  });

  it('counts follow-ups in the same limit and keeps projects apart', async () => {
    const tenant = await createTenant(storage);
    const neighbour = await createTenant(storage);
    const job = await (await post(tenant, '/job', { prompt: 'first' })).json();
    await storage.db.updateTable('jobs').set({ status: 'completed' }).where('id', '=', job.id).execute();
    const followUp = await post(tenant, `/job/${job.id}/message`, { prompt: 'second' });
    expect(followUp.status).toBe(200);
    expect(followUp.headers.get('ratelimit-remaining')).toBe('98');
    const elsewhere = await post(neighbour, '/job', { prompt: 'other project' });
    expect(elsewhere.headers.get('ratelimit-remaining')).toBe('99');
  });

  it('frees capacity as the rolling window moves', async () => {
    const tenant = await createTenant(storage);
    const hourAgo = Date.now() - 3600_000 + 2_000;
    await storage.db
      .insertInto('rate_limit_buckets')
      .values({ bucket: `jobs:${tenant.project.id}` })
      .execute();
    await storage.db
      .insertInto('rate_limit_hits')
      .values(Array.from({ length: 100 }, () => ({ bucket: `jobs:${tenant.project.id}`, at: hourAgo })))
      .execute();
    const refused = await post(tenant, '/job', { prompt: 'too soon' });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(2);
    await new Promise((resolve) => setTimeout(resolve, 2_100));
    const accepted = await post(tenant, '/job', { prompt: 'now' });
    expect(accepted.status).toBe(201);
  });

  it('returns the same job for a replayed Idempotency-Key without counting it, and 409 for another body', async () => {
    const tenant = await createTenant(storage);
    const headers = { 'idempotency-key': 'create-7f3a' };
    const replies = await Promise.all([1, 2, 3].map(() => post(tenant, '/job', { prompt: 'same' }, headers)));
    const bodies = await Promise.all(replies.map((reply) => reply.json()));
    expect(new Set(bodies.map((body) => body.id)).size).toBe(1);
    expect(replies.every((reply) => reply.status === 201)).toBe(true);
    const jobs = await storage.db.selectFrom('jobs').select('id').where('project_id', '=', tenant.project.id).execute();
    expect(jobs).toHaveLength(1);
    const hits = await storage.db.selectFrom('rate_limit_hits').select('at').where('bucket', '=', `jobs:${tenant.project.id}`).execute();
    expect(hits).toHaveLength(1);
    const different = await post(tenant, '/job', { prompt: 'different' }, headers);
    expect(different.status).toBe(409);
    expect((await different.json()).error).toContain('Idempotency-Key');
    const otherProject = await createTenant(storage);
    const sameKeyElsewhere = await post(otherProject, '/job', { prompt: 'same' }, headers);
    expect(sameKeyElsewhere.status).toBe(201);
    expect((await sameKeyElsewhere.json()).id).not.toBe(bodies[0].id);
  });

  it('replays follow-ups by Idempotency-Key', async () => {
    const tenant = await createTenant(storage);
    const job = await (await post(tenant, '/job', { prompt: 'first' })).json();
    await storage.db.updateTable('jobs').set({ status: 'completed' }).where('id', '=', job.id).execute();
    const first = await post(tenant, `/job/${job.id}/message`, { prompt: 'more' }, { 'idempotency-key': 'k1' });
    const again = await post(tenant, `/job/${job.id}/message`, { prompt: 'more' }, { 'idempotency-key': 'k1' });
    expect(first.status).toBe(200);
    expect(again.status).toBe(200);
    const prompts = await storage.db.selectFrom('job_messages').select('seq').where('job_id', '=', job.id).where('role', '=', 'user').execute();
    expect(prompts).toHaveLength(2);
  });
});
