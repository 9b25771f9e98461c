import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { createJob } from '../../src/jobs/service.ts';
import { JobFailure, type AgentRunner } from '../../src/jobs/runner.ts';
import { Worker } from '../../src/jobs/worker.ts';
import { claimRuns } from '../../src/jobs/queue/claim.ts';
import type { AppContext } from '../../src/http/context.ts';
import type { Storage } from '../../src/storage/dialect.ts';
import { createTenant, scriptedAgent, testContext, type Tenant } from '../support/app.ts';
import { testDatabases, type TestLocation } from '../support/storage.ts';

async function waitFor<T>(probe: () => Promise<T | undefined | null | false>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe.each(testDatabases)('job worker on $dialect', (database) => {
  let storage: Storage & { location: TestLocation };
  let tenant: Tenant;

  beforeAll(async () => {
    storage = await database.open();
    tenant = await createTenant(storage);
  });
  afterAll(async () => {
    await storage.close();
  });

  function startWorker(runner: AgentRunner, options: { concurrency?: number; leaseMs?: number } = {}) {
    const worker = new Worker({
      storage,
      runner,
      logger: pino({ level: 'silent' }),
      concurrency: options.concurrency ?? 2,
      leaseMs: options.leaseMs ?? 30_000,
      pollMs: 20,
    });
    worker.start();
    return worker;
  }

  const jobRow = (id: string) => storage.db.selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const finished = (id: string) =>
    waitFor(async () => {
      const row = await jobRow(id);
      return row.status !== 'active' && row;
    });

  async function submit(context: AppContext, prompt: string) {
    return (await createJob(context, tenant.project, { prompt })).job;
  }

  it('runs a job to completed with its pull request link, state and usage, and records events', async () => {
    const seen: string[] = [];
    const worker = startWorker({
      async run(run) {
        seen.push(run.prompt);
        await run.record('assistant', { text: 'Edited intro.md' });
        return { prLink: 'https://github.com/acme/docs/pull/1', state: { number: 1 }, usage: { inputTokens: 120, outputTokens: 30 } };
      },
    });
    const context = testContext(storage);
    context.events.on('job-enqueued', worker.notify);
    const job = await submit(context, 'Fix intro');
    const done = await finished(job.id);
    await worker.stop(1000);
    expect(seen).toEqual(['Fix intro']);
    expect(done).toMatchObject({ status: 'completed', pr_link: 'https://github.com/acme/docs/pull/1', input_tokens: 120, output_tokens: 30, error: null });
    expect(JSON.parse(done.runner_state!)).toEqual({ number: 1 });
    const roles = await storage.db.selectFrom('job_messages').select(['role', 'content']).where('job_id', '=', job.id).orderBy('seq').execute();
    expect(roles.map((row) => `${row.role}:${JSON.parse(row.content).type ?? JSON.parse(row.content).status ?? ''}`)).toEqual([
      'user:',
      'status:active',
      'event:job-started',
      'assistant:',
      'event:job-completed',
      'status:completed',
    ]);
    expect(await storage.db.selectFrom('job_queue').select('id').where('job_id', '=', job.id).execute()).toEqual([]);
  });

  it('fails a job with the runner’s explanation, or a generic one when the runner crashes', async () => {
    const worker = startWorker({
      async run(run) {
        if (run.prompt === 'explained')
          throw new JobFailure('The repository https://github.com/acme/missing does not exist.', { usage: { inputTokens: 50, outputTokens: 5 } });
        throw new TypeError('undefined is not a function');
      },
    });
    const context = testContext(storage);
    context.events.on('job-enqueued', worker.notify);
    const explained = await finished((await submit(context, 'explained')).id);
    const crashed = await finished((await submit(context, 'crash')).id);
    await worker.stop(1000);
    expect(explained).toMatchObject({
      status: 'failed',
      error: 'The repository https://github.com/acme/missing does not exist.',
      input_tokens: 50,
      output_tokens: 5,
    });
    expect(crashed.status).toBe('failed');
    expect(crashed.error).toContain('internal error');
    expect(crashed.error).not.toContain('undefined is not a function');
  });

  it('never runs more jobs at once than its concurrency', async () => {
    let running = 0;
    let peak = 0;
    const worker = startWorker(
      {
        async run() {
          running++;
          peak = Math.max(peak, running);
          await new Promise((resolve) => setTimeout(resolve, 30));
          running--;
          return { prLink: null };
        },
      },
      { concurrency: 2 },
    );
    const context = testContext(storage);
    context.events.on('job-enqueued', worker.notify);
    const jobs = await Promise.all(Array.from({ length: 6 }, (_, index) => submit(context, `job ${index}`)));
    for (const job of jobs) await finished(job.id);
    await worker.stop(1000);
    expect(peak).toBe(2);
  });

  it('on stop, lets a job finish within the grace period and releases one that does not', async () => {
    let release: () => void = () => {};
    const worker = startWorker({
      run: (run) =>
        new Promise((resolve, reject) => {
          if (run.prompt === 'quick') setTimeout(() => resolve({ prLink: null }), 50);
          else {
            release = () => resolve({ prLink: null });
            run.signal.addEventListener('abort', () => reject(run.signal.reason));
          }
        }),
    });
    const context = testContext(storage);
    context.events.on('job-enqueued', worker.notify);
    const quick = await submit(context, 'quick');
    const slow = await submit(context, 'slow');
    await waitFor(async () => worker.activeRuns === 2);
    await worker.stop(300);
    release();
    expect((await jobRow(quick.id)).status).toBe('completed');
    expect((await jobRow(slow.id)).status).toBe('active');
    const queued = await storage.db.selectFrom('job_queue').selectAll().where('job_id', '=', slow.id).executeTakeFirstOrThrow();
    expect(queued).toMatchObject({ locked_by: null, locked_until: null, attempts: 0 });
    const next = startWorker({ run: async () => ({ prLink: null }) });
    expect((await finished(slow.id)).status).toBe('completed');
    await next.stop(1000);
  });

  it('retries a job whose worker stopped heartbeating, then fails it as interrupted after max attempts', async () => {
    const context = testContext(storage, { config: { jobMaxAttempts: 2 } });
    const job = await submit(context, 'doomed');
    // Two claims whose workers die (leases of 1 ms that nobody renews).
    for (const workerId of ['wrk_dead_1', 'wrk_dead_2']) {
      await waitFor(async () => (await claimRuns(storage, workerId, 10, 1)).some((claim) => claim.jobId === job.id));
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const worker = startWorker({ run: async () => ({ prLink: null }) });
    const failed = await finished(job.id);
    await worker.stop(1000);
    expect(failed.status).toBe('failed');
    expect(failed.error).toMatch(/interrupted 2 times/);
  });

  it('finishes the job of a worker process killed mid-job once its lease expires', async () => {
    const context = testContext(storage);
    const job = await submit(context, 'survive a crash');
    const child = spawn(process.execPath, ['test/support/worker-process.ts'], {
      env: { ...process.env, ...storage.location.env, QUIRE_JOB_LEASE_SECONDS: '2', LOG_LEVEL: 'silent' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    await waitFor(async () => output.includes(`claimed ${job.id}`), 20_000);
    child.kill('SIGKILL');
    await once(child, 'exit');
    const held = await storage.db.selectFrom('job_queue').selectAll().where('job_id', '=', job.id).executeTakeFirstOrThrow();
    expect(held.locked_by).not.toBeNull();
    expect(held.attempts).toBe(1);

    const worker = startWorker({ run: async () => ({ prLink: 'https://github.com/acme/docs/pull/9' }) }, { leaseMs: 2_000 });
    const done = await finished(job.id);
    await worker.stop(1000);
    expect(done).toMatchObject({ status: 'completed', pr_link: 'https://github.com/acme/docs/pull/9' });
    const starts = await storage.db.selectFrom('job_messages').select('content').where('job_id', '=', job.id).where('role', '=', 'event').execute();
    expect(starts.map((row) => JSON.parse(row.content))).toContainEqual({ type: 'job-started', attempt: 2 });
  });

  it('keeps the agent setup pluggable: a project without repository is refused before queueing', async () => {
    const context = testContext(storage, { agent: scriptedAgent() });
    const bare = await createTenant(storage, { project: { repository: null } });
    await expect(createJob(context, bare.project, { prompt: 'x' })).rejects.toMatchObject({ code: 'project_not_configured' });
  });
});
