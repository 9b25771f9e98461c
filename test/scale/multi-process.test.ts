import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Storage } from '../../src/storage/dialect.ts';
import { createTenant, type Tenant } from '../support/app.ts';
import { startServiceProcess, type ServiceProcess } from '../support/processes.ts';
import { describeOnPostgres, postgresUrl, testDatabases, type TestLocation } from '../support/storage.ts';

const applicationName = `quire_scale_${process.pid}`;
const postgres = testDatabases.find((database) => database.dialect === 'postgres');

async function waitFor(probe: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describeOnPostgres('many processes on one PostgreSQL', () => {
  let storage: Storage & { location: TestLocation };
  let tenant: Tenant;
  const processes: ServiceProcess[] = [];
  let apis: ServiceProcess[];

  beforeAll(async () => {
    storage = await postgres!.open();
    tenant = await createTenant(storage);
    // Workers poll only once a minute here, so prompt pick-ups prove the LISTEN/NOTIFY wake-up.
    const databaseUrl = new URL(storage.location.env.DATABASE_URL);
    databaseUrl.searchParams.set('application_name', applicationName);
    const env = {
      DATABASE_URL: databaseUrl.toString(),
      QUIRE_WORKER_POLL_MS: '60000',
      QUIRE_JOB_RATE_LIMIT: '100',
      QUIRE_ANALYTICS_RATE_LIMIT: '1000',
      QUIRE_WORKER_CONCURRENCY: '4',
      SERVICE_RUN_MS: '5',
    };
    apis = await Promise.all([0, 1].map(() => startServiceProcess({ ...env, SERVICE_WORKER: '0' })));
    const workers = await Promise.all([0, 1, 2].map(() => startServiceProcess({ ...env, SERVICE_API: '0' })));
    processes.push(...apis, ...workers);
  }, 60_000);

  afterAll(async () => {
    await Promise.all(processes.map((process) => process.stop()));
    await storage?.close();
  });

  const create = (url: string, target: Tenant, prompt: string) =>
    fetch(`${url}/v2/agent/${target.project.id}/job`, {
      method: 'POST',
      headers: { ...target.auth, 'content-type': 'application/json' },
      body: JSON.stringify({ prompt }),
    });

  it('accepts exactly 100 of 150 concurrent creates spread over two API processes', async () => {
    const target = await createTenant(storage);
    const responses = await Promise.all(Array.from({ length: 150 }, (_, index) => create(apis[index % 2].url!, target, `burst ${index}`)));
    const statuses = responses.map((response) => response.status);
    expect(statuses.filter((status) => status === 201)).toHaveLength(100);
    expect(statuses.filter((status) => status === 429)).toHaveLength(50);
    const rows = await storage.db.selectFrom('jobs').select('id').where('project_id', '=', target.project.id).execute();
    expect(rows).toHaveLength(100);
  });

  it('runs 500 jobs created through two API processes exactly once on three workers', async () => {
    const projects = await Promise.all(Array.from({ length: 5 }, () => createTenant(storage)));
    const created: string[] = [];
    for (let round = 0; round < 100; round++) {
      const batch = await Promise.all(projects.map((project, index) => create(apis[(round + index) % 2].url!, project, `job ${round}`)));
      for (const response of batch) {
        expect(response.status).toBe(201);
        created.push(((await response.json()) as { id: string }).id);
      }
    }
    await waitFor(async () => {
      const active = await storage.db.selectFrom('jobs').select('id').where('id', 'in', created).where('status', '=', 'active').execute();
      return active.length === 0;
    }, 120_000);
    const jobs = await storage.db.selectFrom('jobs').select(['id', 'status']).where('id', 'in', created).execute();
    expect(jobs.every((job) => job.status === 'completed')).toBe(true);
    const starts = await storage.db
      .selectFrom('job_messages')
      .select(['job_id', (eb) => eb.fn.countAll<number>().as('runs')])
      .where('job_id', 'in', created)
      .where('content', 'like', '%job-started%')
      .groupBy('job_id')
      .execute();
    expect(starts).toHaveLength(500);
    expect(starts.every((row) => Number(row.runs) === 1)).toBe(true);
    const runners = await storage.db.selectFrom('job_messages').select('content').where('job_id', 'in', created).where('role', '=', 'assistant').execute();
    const pids = new Set(runners.map((row) => (JSON.parse(row.content) as { pid: number }).pid));
    expect(pids.size).toBe(3);
    expect(await storage.db.selectFrom('job_queue').select('id').where('job_id', 'in', created).execute()).toEqual([]);
  }, 180_000);

  it('wakes a worker in another process within a moment of a create (LISTEN/NOTIFY, not polling)', async () => {
    const response = await create(apis[0].url!, tenant, 'wake up');
    const job = (await response.json()) as { id: string };
    await waitFor(
      async () => (await storage.db.selectFrom('jobs').select('status').where('id', '=', job.id).executeTakeFirstOrThrow()).status === 'completed',
      10_000,
    );
    const rows = await storage.db.selectFrom('job_messages').select(['created_at', 'content']).where('job_id', '=', job.id).orderBy('seq').execute();
    const started = rows.find((row) => row.content.includes('job-started'))!;
    expect(started.created_at - rows[0].created_at).toBeLessThan(1000);
  });

  it('counts visitors ingested concurrently through both API processes exactly', async () => {
    const target = await createTenant(storage);
    const day = Date.UTC(2026, 10, 20);
    const agents = {
      human: 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0',
      ai: 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)',
    };
    const expected = { human: new Set<string>(), ai: new Set<string>() };
    const batches = Array.from({ length: 24 }, (_, batch) =>
      Array.from({ length: 400 }, (_, index) => {
        // Overlapping visitor ids across batches and processes, some seen as both human and AI.
        const visitor = `v${(batch * 131 + index * 7) % 3000}`;
        const kind = (batch + index) % 3 === 0 ? 'ai' : 'human';
        expected[kind].add(visitor);
        return { path: `/page-${index % 20}`, visitorId: visitor, userAgent: agents[kind], timestamp: new Date(day + batch * 60_000 + index).toISOString() };
      }),
    );
    const replies = await Promise.all(
      batches.map((events, batch) =>
        fetch(`${apis[batch % 2].url}/v1/analytics/${target.project.id}/events`, {
          method: 'POST',
          headers: { ...target.auth, 'content-type': 'application/json' },
          body: JSON.stringify({ events }),
        }),
      ),
    );
    for (const reply of replies) expect(await reply.json()).toMatchObject({ accepted: 400, rejected: 0 });
    const both = new Set([...expected.human, ...expected.ai]);
    for (const api of apis) {
      const response = await fetch(`${api.url}/v1/analytics/${target.project.id}/visitors?dateFrom=2026-11-20&dateTo=2026-11-21`, { headers: target.auth });
      const body = (await response.json()) as { totals: { human: number; ai: number; total: number } };
      expect(body.totals).toEqual({ human: expected.human.size, ai: expected.ai.size, total: both.size });
    }
  });

  it('keeps serving after its database connections are cut', async () => {
    const admin = await import('pg');
    const client = new admin.default.Client({ connectionString: postgresUrl });
    await client.connect();
    const cut = await client.query('select pg_terminate_backend(pid) from pg_stat_activity where application_name = $1', [applicationName]);
    expect(cut.rowCount).toBeGreaterThan(5);
    await client.end();
    await waitFor(async () => (await fetch(`${apis[0].url}/readyz`)).status === 200, 15_000);
    const response = await create(apis[1].url!, tenant, 'after the cut');
    expect([201, 503]).toContain(response.status);
    await waitFor(async () => (await create(apis[1].url!, tenant, 'retry')).status === 201, 15_000);
    for (const process of processes) expect(process.child.exitCode).toBeNull();
  });
});
