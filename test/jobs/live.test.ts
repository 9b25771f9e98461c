import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { createKey } from '../../src/accounts/keys.ts';
import type { AgentRunner } from '../../src/jobs/runner.ts';
import { Worker } from '../../src/jobs/worker.ts';
import type { AppContext } from '../../src/http/context.ts';
import type { Storage } from '../../src/storage/dialect.ts';
import { createTenant, testApp, testContext, type Tenant } from '../support/app.ts';
import { collectEvents, openEvents, type ParsedEvent } from '../support/event-stream.ts';
import { testDatabases, type TestLocation } from '../support/storage.ts';

async function waitFor<T>(probe: () => Promise<T | undefined | null | false> | T | undefined | null | false, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe.each(testDatabases)('job events and cancel on $dialect', (database) => {
  let storage: Storage & { location: TestLocation };
  let context: AppContext;
  let app: FastifyInstance;
  let base: string;
  let tenant: Tenant;
  let other: Tenant;
  const workers: Worker[] = [];

  beforeAll(async () => {
    storage = await database.open();
    context = testContext(storage, { config: { eventsPollMs: 50, jobCancelPollMs: 100 } });
    app = await testApp(context);
    base = await app.listen({ port: 0, host: '127.0.0.1' });
    tenant = await createTenant(storage);
    other = await createTenant(storage);
  });
  afterAll(async () => {
    for (const worker of workers) await worker.stop(1000);
    await app.close();
    await storage.close();
  });

  function startWorker(runner: AgentRunner): Worker {
    const worker = new Worker({ storage, runner, logger: pino({ level: 'silent' }), concurrency: 2, leaseMs: 30_000, pollMs: 20, cancelPollMs: 100 });
    context.events.on('job-enqueued', worker.notify);
    context.events.on('job-cancelled', worker.cancel);
    worker.start();
    workers.push(worker);
    return worker;
  }

  async function stopWorker(worker: Worker): Promise<void> {
    context.events.off('job-enqueued', worker.notify);
    context.events.off('job-cancelled', worker.cancel);
    await worker.stop(1000);
  }

  const jobUrl = (t: Tenant, id: string, suffix = '') => `${base}/v2/agent/${t.project.id}/job/${id}${suffix}`;
  async function create(t: Tenant, body: Record<string, unknown>, headers: Record<string, string> = {}) {
    const response = await fetch(`${base}/v2/agent/${t.project.id}/job`, {
      method: 'POST',
      headers: { ...t.auth, 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> & { id: string } };
  }
  const cancel = (t: Tenant, id: string) => fetch(jobUrl(t, id, '/cancel'), { method: 'POST', headers: t.auth });
  const jobRow = (id: string) => storage.db.selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

  it('streams every transcript entry and status change live, with increasing ids, then ends', async () => {
    // Made before the run starts: the entry can reach the stream before the run's own await of it returns.
    let release: () => void = () => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    const worker = startWorker({
      async run(run) {
        await run.record('assistant', { text: 'Reading the docs' });
        await released;
        await run.record('assistant', { text: 'Done' });
        return { prLink: 'https://github.com/acme/docs/pull/7' };
      },
    });
    const job = (await create(tenant, { prompt: 'Stream me' })).body;
    const { response, events } = await openEvents(jobUrl(tenant, job.id, '/events'), tenant.auth);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const received: ParsedEvent[] = [];
    for await (const event of events) {
      received.push(event);
      // The run waits for the test: this entry can only have arrived live.
      if (event.data.content && (event.data.content as { text?: string }).text === 'Reading the docs') release();
    }
    await stopWorker(worker);
    expect(received.map((event) => `${event.event}:${String(event.data.role ?? event.data.status)}`)).toEqual([
      'message:user',
      'status:active',
      'message:event',
      'message:assistant',
      'message:assistant',
      'message:event',
      'status:completed',
    ]);
    const ids = received.map((event) => event.id);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(new Set(ids).size).toBe(ids.length);
    const transcript = (await (await fetch(jobUrl(tenant, job.id, '/messages'), { headers: tenant.auth })).json()) as { messages: unknown[] };
    expect(received.filter((event) => event.event === 'message').map((event) => event.data)).toEqual(transcript.messages);
    const final = (await (await fetch(jobUrl(tenant, job.id), { headers: tenant.auth })).json()) as Record<string, unknown>;
    expect(received.at(-1)!.data).toEqual(final);

    // Resuming after an event sends only what followed it; a finished job's stream ends by itself.
    const resumed = await collectEvents(jobUrl(tenant, job.id, '/events'), tenant.auth, { lastEventId: received[2].id });
    expect(resumed).toEqual(received.slice(3));
    expect(await collectEvents(jobUrl(tenant, job.id, '/events'), tenant.auth, { lastEventId: received.at(-1)!.id })).toEqual([]);
  });

  it('answers 404 for another organization’s job and a missing job, 400 for a bad Last-Event-ID, 401 without a key', async () => {
    const job = (await create(tenant, { prompt: 'Private' })).body;
    expect((await fetch(`${base}/v2/agent/${tenant.project.id}/job/${job.id}/events`, { headers: other.auth })).status).toBe(404);
    expect((await fetch(jobUrl(other, job.id, '/events'), { headers: other.auth })).status).toBe(404);
    expect((await fetch(jobUrl(tenant, 'job_01ARZ3NDEKTSV4RRFFQ69G5FAV', '/events'), { headers: tenant.auth })).status).toBe(404);
    const bad = await fetch(jobUrl(tenant, job.id, '/events'), { headers: { ...tenant.auth, 'last-event-id': '-3' } });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { code: string }).code).toBe('invalid_request');
    expect((await fetch(jobUrl(tenant, job.id, '/events'))).status).toBe(401);
    expect((await cancel(other, job.id)).status).toBe(404);
    expect((await fetch(`${base}/v2/agent/${tenant.project.id}/job/${job.id}/cancel`, { method: 'POST', headers: other.auth })).status).toBe(404);
    expect((await cancel(tenant, 'job_01ARZ3NDEKTSV4RRFFQ69G5FAV')).status).toBe(404);
    const { key: readOnly } = await createKey(storage.db, tenant.orgId, { scopes: ['read'] });
    expect((await fetch(jobUrl(tenant, job.id, '/cancel'), { method: 'POST', headers: { authorization: `Bearer ${readOnly}` } })).status).toBe(403);
    expect((await jobRow(job.id)).status).toBe('active');
    expect((await cancel(tenant, job.id)).status).toBe(200);
  });

  it('cancels a queued job: it fails with who and when, never starts, and a second cancel is 409', async () => {
    const job = (await create(tenant, { prompt: 'Never run me' })).body;
    const stream = openEvents(jobUrl(tenant, job.id, '/events'), tenant.auth);
    const response = await cancel(tenant, job.id);
    expect(response.status).toBe(200);
    const cancelled = (await response.json()) as { status: string; error: string };
    expect(cancelled.status).toBe('failed');
    expect(cancelled.error).toMatch(/^The job was cancelled by API key ".*" \(quire_.*…\) at \d{4}-\d\d-\d\dT[\d:.]+Z;/);
    expect(await storage.db.selectFrom('job_queue').select('id').where('job_id', '=', job.id).execute()).toEqual([]);
    const again = await cancel(tenant, job.id);
    expect(again.status).toBe(409);
    expect(((await again.json()) as { code: string }).code).toBe('conflict');

    let started = false;
    const worker = startWorker({
      async run() {
        started = true;
        return { prLink: null };
      },
    });
    const events: ParsedEvent[] = [];
    for await (const event of (await stream).events) events.push(event);
    await stopWorker(worker);
    expect(started).toBe(false);
    expect(events.at(-1)).toMatchObject({ event: 'status', data: { status: 'failed', error: cancelled.error } });
    expect(events.some((event) => (event.data.content as { type?: string } | undefined)?.type === 'job-cancelled')).toBe(true);
  });

  it('aborts a running job mid-step: its signal fires, it records and publishes nothing more, and it can be followed up', async () => {
    let stillRunningAfter: boolean | null = null;
    let runs = 0;
    const worker = startWorker({
      async run(run) {
        runs++;
        if (runs > 1) return { prLink: null };
        await run.record('assistant', { text: 'step 1' });
        await new Promise((resolve) => run.signal.addEventListener('abort', resolve));
        stillRunningAfter = await run.stillRunning();
        await run.record('assistant', { text: 'after the cancel' });
        throw run.signal.reason;
      },
    });
    const job = (await create(tenant, { prompt: 'Work until cancelled' })).body;
    await waitFor(
      async () => (await storage.db.selectFrom('job_messages').select('seq').where('job_id', '=', job.id).where('role', '=', 'assistant').execute()).length > 0,
    );
    expect((await cancel(tenant, job.id)).status).toBe(200);
    await waitFor(() => stillRunningAfter !== null && worker.activeRuns === 0);
    expect(stillRunningAfter).toBe(false);
    const row = await jobRow(job.id);
    expect(row).toMatchObject({ status: 'failed', cancelled_by: expect.stringContaining('API key') });
    const texts = (await storage.db.selectFrom('job_messages').select('content').where('job_id', '=', job.id).execute()).map((message) => message.content);
    expect(texts.join()).not.toContain('after the cancel');

    const followUp = await fetch(jobUrl(tenant, job.id, '/message'), {
      method: 'POST',
      headers: { ...tenant.auth, 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: 'Carry on' }),
    });
    expect(followUp.status).toBe(200);
    await waitFor(async () => (await jobRow(job.id)).status === 'completed');
    await stopWorker(worker);
  });

  it('streams and cancels a job that a worker in another process runs', async () => {
    const child: ChildProcess = spawn(process.execPath, ['test/support/worker-process.ts'], {
      env: { ...process.env, ...storage.location.env, QUIRE_TEST_WORKER_STEPS: '2', QUIRE_JOB_CANCEL_POLL_MS: '100', LOG_LEVEL: 'silent' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let output = '';
    child.stdout!.on('data', (chunk) => (output += chunk));
    try {
      const finished = (await create(tenant, { prompt: 'finish' })).body;
      const finishedEvents = await collectEvents(jobUrl(tenant, finished.id, '/events'), tenant.auth);
      expect(finishedEvents.map((event) => (event.data.content as { text?: string } | undefined)?.text ?? event.data.status).filter(Boolean)).toEqual([
        'finish',
        'active',
        'step 1',
        'step 2',
        'completed',
      ]);

      const job = (await create(tenant, { prompt: 'Work elsewhere' })).body;
      const { events } = await openEvents(jobUrl(tenant, job.id, '/events'), tenant.auth);
      const received: ParsedEvent[] = [];
      for await (const event of events) {
        received.push(event);
        if ((event.data.content as { text?: string } | undefined)?.text === 'step 2') {
          await waitFor(() => output.includes(`working ${job.id}`));
          expect((await cancel(tenant, job.id)).status).toBe(200);
        }
      }
      await waitFor(() => output.includes(`aborted ${job.id}`));
      expect(received.at(-1)).toMatchObject({ event: 'status', data: { status: 'failed' } });
      expect((await jobRow(job.id)).error).toContain('cancelled');
    } finally {
      child.kill('SIGKILL');
    }
  });

  it.runIf(database.dialect === 'postgres')('streams the rows a worker in another process records as they commit, not at the next poll', async () => {
    // The stream polls every 10 s here: only the worker's notifications can bring its rows in time.
    const slowContext = testContext(storage, { config: { eventsPollMs: 10_000 } });
    const slowApp = await testApp(slowContext);
    const slowBase = await slowApp.listen({ port: 0, host: '127.0.0.1' });
    const child: ChildProcess = spawn(process.execPath, ['test/support/worker-process.ts'], {
      env: { ...process.env, ...storage.location.env, QUIRE_TEST_WORKER_STEPS: '3', LOG_LEVEL: 'silent' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      const job = (await create(tenant, { prompt: 'finish' })).body;
      const started = Date.now();
      const { events } = await openEvents(`${slowBase}/v2/agent/${tenant.project.id}/job/${job.id}/events`, tenant.auth);
      const received: { text: string; at: number }[] = [];
      for await (const event of events) {
        const text = (event.data.content as { text?: string } | undefined)?.text ?? (event.data.status as string | undefined);
        if (text) received.push({ text, at: Date.now() });
      }
      expect(received.map((event) => event.text)).toEqual(['finish', 'active', 'step 1', 'step 2', 'step 3', 'completed']);
      // Three steps 50 ms apart and a start: well inside one poll interval, however slow the worker is to start.
      expect(received.at(-1)!.at - received.find((event) => event.text === 'step 1')!.at).toBeLessThan(5_000);
      expect(Date.now() - started).toBeLessThan(9_000);
    } finally {
      child.kill('SIGKILL');
      await slowApp.close();
    }
  });

  describe('create options', () => {
    let configured: AppContext;
    let optionsApp: FastifyInstance;

    beforeAll(async () => {
      configured = testContext(storage, { config: { allowedModels: ['anthropic:claude-sonnet-4-5', 'openai:gpt-5'] } });
      optionsApp = await testApp(configured);
    });
    afterAll(async () => {
      await optionsApp.close();
    });

    const post = (body: unknown, headers: Record<string, string> = {}) =>
      optionsApp.inject({ method: 'POST', url: `/v2/agent/${tenant.project.id}/job`, headers: { ...tenant.auth, ...headers }, payload: body as object });

    it('stores ref, branch, draft and an allowed model on the job', async () => {
      const response = await post({ prompt: 'With options', ref: 'release/2.0', branch: 'docs/rewrite-intro', draft: true, model: 'gpt-5' });
      expect(response.statusCode).toBe(201);
      expect(response.json()).toMatchObject({ source: { ref: 'release/2.0' }, model: 'gpt-5' });
      const row = await jobRow(response.json().id);
      expect(row).toMatchObject({ ref: 'release/2.0', branch: 'docs/rewrite-intro', draft: 1, model: 'openai:gpt-5' });
      const plain = await post({ prompt: 'Without options' });
      expect(await jobRow(plain.json().id)).toMatchObject({ ref: 'main', branch: `quire/${plain.json().id}`, draft: 0, model: 'openai-compatible:test-model' });
      const named = await post({ prompt: 'Provider named', model: 'anthropic:claude-sonnet-4-5' });
      expect(named.statusCode).toBe(201);
    });

    it('refuses invalid branch names, a branch in use, models not allowed and unknown fields', async () => {
      for (const branch of [
        'bad..name',
        '-x',
        'a b',
        'x.lock',
        'a//b',
        '/a',
        'a/',
        'HEAD',
        '.hidden',
        'end.',
        'a~1',
        'a^',
        'a:b',
        'a?',
        'a*',
        'a[',
        'a\\b',
        'ü',
        '@',
        'a@{1}',
        '',
      ]) {
        const response = await post({ prompt: 'x', branch });
        expect(response.statusCode, branch).toBe(400);
        expect(response.json().code).toBe('invalid_request');
      }
      expect((await post({ prompt: 'x', ref: 'main..other' })).statusCode).toBe(400);
      expect((await post({ prompt: 'first', branch: 'docs/taken' })).statusCode).toBe(201);
      const taken = await post({ prompt: 'second', branch: 'docs/taken' });
      expect(taken.statusCode).toBe(409);
      expect(taken.json().error).toContain('docs/taken');
      const model = await post({ prompt: 'x', model: 'openai:gpt-4o' });
      expect(model.statusCode).toBe(400);
      expect(model.json().error).toContain('QUIRE_ALLOWED_MODELS');
      expect((await post({ prompt: 'x', colour: 'blue' })).statusCode).toBe(400);
      expect((await post({ prompt: 'x', draft: 'yes' })).statusCode).toBe(400);
      // The default app allows only the project's model.
      const defaults = await app.inject({
        method: 'POST',
        url: `/v2/agent/${tenant.project.id}/job`,
        headers: tenant.auth,
        payload: { prompt: 'x', model: 'gpt-5' },
      });
      expect(defaults.statusCode).toBe(400);
    });

    it('counts the options in idempotency keys', async () => {
      const first = await post({ prompt: 'Same', draft: true }, { 'idempotency-key': 'options-1' });
      const replay = await post({ prompt: 'Same', draft: true }, { 'idempotency-key': 'options-1' });
      expect(replay.json().id).toBe(first.json().id);
      expect((await post({ prompt: 'Same', draft: false }, { 'idempotency-key': 'options-1' })).statusCode).toBe(409);
      expect((await post({ prompt: 'Same' }, { 'idempotency-key': 'options-1' })).statusCode).toBe(409);
    });
  });
});
