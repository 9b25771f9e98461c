import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { AppContext } from '../../src/http/context.ts';
import { queueJobEvent } from '../../src/jobs/webhooks/emit.ts';
import { DeliveryLoop } from '../../src/jobs/webhooks/loop.ts';
import { createJob } from '../../src/jobs/service.ts';
import type { Storage } from '../../src/storage/dialect.ts';
import { startServiceProcess } from '../support/processes.ts';
import { createTenant, testApp, testContext, type Tenant } from '../support/app.ts';
import { testDatabases, type TestLocation } from '../support/storage.ts';
import { startWebhookReceiver, type Answer, type WebhookReceiver } from '../support/webhook-receiver.ts';

const settings = { webhooksAllowPrivate: true, webhookTimeoutMs: 400, webhookPollMs: 20 };
const quickRetries = { firstDelayMs: 30, maxDelayMs: 200 };

describe.each(testDatabases)('signed webhooks on $dialect', (database) => {
  let storage: Storage & { location: TestLocation };
  let context: AppContext;
  let app: FastifyInstance;
  let tenant: Tenant;
  let other: Tenant;
  const cleanups: (() => Promise<void>)[] = [];

  beforeAll(async () => {
    storage = await database.open();
    context = testContext(storage, { config: settings });
    app = await testApp(context);
    tenant = await createTenant(storage);
    other = await createTenant(storage);
  });
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
    await storage.db.deleteFrom('webhook_endpoints').execute();
  });
  afterAll(async () => {
    await app.close();
    await storage.close();
  });

  async function receiver(answer?: Answer): Promise<WebhookReceiver> {
    const started = await startWebhookReceiver(answer);
    cleanups.push(() => started.close());
    return started;
  }

  /** A delivery loop on `on` (default the app's database), woken by the app's events as the service wires it. */
  function loop(on: Storage = storage, config: Partial<AppContext['config']> = {}, wake = true): DeliveryLoop {
    const started = new DeliveryLoop({ storage: on, config: { ...context.config, ...config }, logger: pino({ level: 'silent' }), policy: quickRetries });
    if (wake) context.events.on('webhooks-queued', started.notify);
    started.start();
    cleanups.push(async () => {
      context.events.off('webhooks-queued', started.notify);
      await started.stop();
    });
    return started;
  }

  async function createWebhook(url: string, body: Record<string, unknown> = {}, as: Tenant = tenant) {
    const response = await app.inject({ method: 'POST', url: `/v2/agent/${as.project.id}/webhooks`, headers: as.auth, payload: { url, ...body } });
    expect(response.statusCode, response.body).toBe(201);
    return response.json<{ id: string; secret: string; url: string; events: string[] }>();
  }

  async function deliveries(webhookId: string, as: Tenant = tenant) {
    const response = await app.inject({ url: `/v2/agent/${as.project.id}/webhooks/${webhookId}/deliveries`, headers: as.auth });
    expect(response.statusCode, response.body).toBe(200);
    return response.json<{
      deliveries: {
        id: string;
        type: string;
        status: string;
        attempts: number;
        lastStatusCode: number | null;
        nextAttemptAt: string | null;
        log: { statusCode: number | null; durationMs: number; error: string | null }[];
      }[];
    }>().deliveries;
  }

  async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 10_000): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = await read();
      if (done(value)) return value;
      if (Date.now() > deadline) throw new Error(`condition not met: ${JSON.stringify(value)}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  it('creates an endpoint with a secret shown once, lists, reads, changes and deletes it', async () => {
    const created = await createWebhook('http://127.0.0.1:9/hooks', { events: ['job.completed'], description: 'CI' });
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/=]{40,}$/);
    expect(created).toMatchObject({ url: 'http://127.0.0.1:9/hooks', events: ['job.completed'], description: 'CI', disabledAt: null });
    const base = `/v2/agent/${tenant.project.id}/webhooks`;
    const list = await app.inject({ url: base, headers: tenant.auth });
    expect(list.json().webhooks).toHaveLength(1);
    expect(list.body).not.toContain(created.secret);
    const row = await storage.db.selectFrom('webhook_endpoints').select('secret').executeTakeFirstOrThrow();
    expect(row.secret).toBe(created.secret); // no QUIRE_SECRET_KEY here: kept readable to sign with, never shown
    const read = await app.inject({ url: `${base}/${created.id}`, headers: tenant.auth });
    expect(read.json()).not.toHaveProperty('secret');
    const patched = await app.inject({
      method: 'PATCH',
      url: `${base}/${created.id}`,
      headers: tenant.auth,
      payload: { events: ['job.failed', 'job.cancelled'], description: null },
    });
    expect(patched.json()).toMatchObject({ events: ['job.failed', 'job.cancelled'], description: null });
    expect((await app.inject({ method: 'DELETE', url: `${base}/${created.id}`, headers: tenant.auth })).statusCode).toBe(204);
    expect((await app.inject({ url: `${base}/${created.id}`, headers: tenant.auth })).statusCode).toBe(404);
  });

  it('refuses bad URLs, unknown event types and, unless allowed, private addresses', async () => {
    const base = `/v2/agent/${tenant.project.id}/webhooks`;
    for (const url of ['ftp://example.com/x', 'not a url', 'javascript:alert(1)', 'http://user:pass@example.com/']) {
      const response = await app.inject({ method: 'POST', url: base, headers: tenant.auth, payload: { url } });
      expect(response.statusCode, url).toBe(400);
      expect(response.json().code).toBe('invalid_request');
    }
    const unknown = await app.inject({ method: 'POST', url: base, headers: tenant.auth, payload: { url: 'http://127.0.0.1/', events: ['job.exploded'] } });
    expect(unknown.statusCode).toBe(400);
    const strict = testContext(storage, { config: { webhooksAllowPrivate: false } });
    const strictApp = await testApp(strict);
    try {
      for (const url of [
        'http://127.0.0.1/',
        'http://localhost:8080/',
        'http://10.1.2.3/',
        'http://169.254.169.254/latest/meta-data',
        'http://[::1]/',
        'http://[::ffff:127.0.0.1]/',
        'http://100.64.0.1/',
        'http://0.0.0.0/',
      ]) {
        const response = await strictApp.inject({ method: 'POST', url: base, headers: tenant.auth, payload: { url } });
        expect(response.statusCode, url).toBe(400);
        expect(response.json().error, url).toMatch(/non-public address/);
      }
    } finally {
      await strictApp.close();
    }
  });

  it('answers another organization 404 on every webhook operation, and a read-only key 403 on changes', async () => {
    const victim = await createWebhook('http://127.0.0.1:9/victim');
    await queueJobEvent(storage.db, (await createJob(context, tenant.project, { prompt: 'x' })).job, 'job.cancelled');
    const [delivery] = await deliveries(victim.id);
    const base = `/v2/agent/${tenant.project.id}/webhooks`;
    const attempts: [string, string, unknown?][] = [
      ['GET', base],
      ['POST', base, { url: 'http://127.0.0.1/' }],
      ['GET', `${base}/${victim.id}`],
      ['PATCH', `${base}/${victim.id}`, { enabled: false }],
      ['DELETE', `${base}/${victim.id}`],
      ['POST', `${base}/${victim.id}/rotate-secret`],
      ['GET', `${base}/${victim.id}/deliveries`],
      ['POST', `${base}/${victim.id}/deliveries/${delivery.id}/redeliver`],
    ];
    for (const [method, url, payload] of attempts) {
      const response = await app.inject({ method: method as 'GET', url, headers: other.auth, payload: payload as object });
      expect(response.statusCode, `${method} ${url}`).toBe(404);
      expect(response.body).not.toContain('victim');
    }
    // The attacker's own project path with the victim's webhook id is 404 as well.
    const own = await app.inject({ url: `/v2/agent/${other.project.id}/webhooks/${victim.id}/deliveries`, headers: other.auth });
    expect(own.statusCode).toBe(404);
    const reader = await createTenant(storage, { scopes: ['read'] });
    const forbidden = await app.inject({
      method: 'POST',
      url: `/v2/agent/${reader.project.id}/webhooks`,
      headers: reader.auth,
      payload: { url: 'http://127.0.0.1/' },
    });
    expect(forbidden.statusCode).toBe(403);
    expect((await storage.db.selectFrom('webhook_endpoints').select('id').execute()).map((row) => row.id)).toEqual([victim.id]);
  });

  it('delivers job.created signed as Standard Webhooks, verified on a real receiving server', async () => {
    const server = await receiver();
    const endpoint = await createWebhook(`${server.url}/hooks`);
    loop();
    const { job } = await createJob(context, tenant.project, { prompt: 'Document the API' });
    const [received] = await server.waitFor(1);
    const headers = received.headers as Record<string, string>;
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/=]+$/);
    const payload = new Webhook(endpoint.secret).verify(received.body, headers) as {
      type: string;
      timestamp: string;
      data: { job: { id: string; status: string } };
    };
    expect(payload.type).toBe('job.created');
    expect(payload.data.job).toMatchObject({ id: job.id, status: 'active' });
    expect(new Date(payload.timestamp).toISOString()).toBe(payload.timestamp);
    expect(() => new Webhook(endpoint.secret).verify(received.body.replace('job.created', 'job.failed'), headers)).toThrow();
    expect(() => new Webhook(`whsec_${Buffer.alloc(32, 1).toString('base64')}`).verify(received.body, headers)).toThrow();
    const [delivery] = await until(
      () => deliveries(endpoint.id),
      (list) => list[0]?.status === 'delivered',
    );
    expect(delivery).toMatchObject({ id: headers['webhook-id'], type: 'job.created', attempts: 1, lastStatusCode: 200 });
    expect(delivery.log[0]).toMatchObject({ statusCode: 200, error: null });
  });

  it('sends only subscribed types, and job.cancelled through the one emission function', async () => {
    const server = await receiver();
    const endpoint = await createWebhook(`${server.url}/cancel`, { events: ['job.cancelled'] });
    loop();
    const { job } = await createJob(context, tenant.project, { prompt: 'Not announced' });
    await storage.db.transaction().execute(async (trx) => {
      await trx.updateTable('jobs').set({ status: 'failed', error: 'Cancelled.' }).where('id', '=', job.id).execute();
      await queueJobEvent(trx, { ...job, status: 'failed', error: 'Cancelled.' }, 'job.cancelled');
    });
    context.events.emit('webhooks-queued');
    const [received] = await server.waitFor(1);
    const payload = new Webhook(endpoint.secret).verify(received.body, received.headers as Record<string, string>) as {
      type: string;
      data: { job: { status: string } };
    };
    expect(payload).toMatchObject({ type: 'job.cancelled', data: { job: { status: 'failed', error: 'Cancelled.' } } });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(server.received).toHaveLength(1);
  });

  it('retries with backoff after 500s and a timeout, logging each attempt, until a 2xx', async () => {
    let calls = 0;
    const server = await receiver(() => {
      calls += 1;
      if (calls <= 2) return { status: 500 };
      if (calls === 3) return { status: 200, delayMs: 1500 };
      return { status: 204 };
    });
    const endpoint = await createWebhook(`${server.url}/flaky`, { events: ['job.created'] });
    loop();
    await createJob(context, tenant.project, { prompt: 'Retry me' });
    const [delivery] = await until(
      () => deliveries(endpoint.id),
      (list) => list[0]?.status === 'delivered',
    );
    expect(delivery.attempts).toBe(4);
    expect(delivery.log.map((attempt) => attempt.statusCode)).toEqual([500, 500, null, 204]);
    expect(delivery.log[0].error).toMatch(/HTTP 500/);
    expect(delivery.log[2].error).toMatch(/did not answer within 400 ms/);
    for (const attempt of delivery.log) expect(attempt.durationMs).toBeGreaterThanOrEqual(0);
    const times = server.received.map((request) => request.at);
    // Each wait is at least half of a doubling delay: 15 ms, then 30 ms.
    expect(times[1] - times[0]).toBeGreaterThanOrEqual(15);
    expect(times[2] - times[1]).toBeGreaterThanOrEqual(30);
    expect(new Set(server.received.map((request) => request.headers['webhook-id'])).size).toBe(1);
  });

  it('does not follow redirects, and fails a delivery whose retry window has passed', async () => {
    const server = await receiver((request) => (request.path === '/moved' ? { status: 302, headers: { location: '/elsewhere' } } : { status: 200 }));
    const endpoint = await createWebhook(`${server.url}/moved`, { events: ['job.created'] });
    await createJob(context, tenant.project, { prompt: 'Redirect' });
    await storage.db
      .updateTable('webhook_deliveries')
      .set({ retrying_since: Date.now() - 25 * 3_600_000 })
      .execute();
    loop();
    const [delivery] = await until(
      () => deliveries(endpoint.id),
      (list) => list[0]?.status === 'failed',
    );
    expect(delivery).toMatchObject({ attempts: 1, lastStatusCode: 302 });
    expect(server.received.map((request) => request.path)).toEqual(['/moved']);
  });

  it('disables an endpoint that kept failing for the configured time, with the reason, until PATCH enables it', async () => {
    let status = 503;
    const server = await receiver(() => ({ status }));
    const endpoint = await createWebhook(`${server.url}/down`, { events: ['job.created'] });
    await storage.db
      .updateTable('webhook_endpoints')
      .set({ failing_since: Date.now() - 73 * 3_600_000 })
      .execute();
    loop();
    await createJob(context, tenant.project, { prompt: 'One' });
    const base = `/v2/agent/${tenant.project.id}/webhooks/${endpoint.id}`;
    const disabled = await until(
      async () => (await app.inject({ url: base, headers: tenant.auth })).json<{ disabledAt: string | null; disabledReason: string | null }>(),
      (view) => view.disabledAt !== null,
    );
    expect(disabled.disabledReason).toMatch(/failed for 7\d(\.\d)? h .*HTTP 503.*"enabled": true/);
    // Its pending delivery waits, off the schedule, while the endpoint is off.
    await until(
      () => deliveries(endpoint.id),
      (list) => list[0]?.status === 'pending' && list[0].nextAttemptAt === null,
    );
    const sent = server.received.length;
    await createJob(context, tenant.project, { prompt: 'Two: not queued while disabled' });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(server.received).toHaveLength(sent);
    status = 200;
    const enabled = await app.inject({ method: 'PATCH', url: base, headers: tenant.auth, payload: { enabled: true } });
    expect(enabled.json()).toMatchObject({ disabledAt: null, disabledReason: null });
    // The delivery still pending when it was disabled resumes.
    const [delivery] = await until(
      () => deliveries(endpoint.id),
      (list) => list.every((entry) => entry.status === 'delivered'),
    );
    expect(delivery.lastStatusCode).toBe(200);
    const row = await storage.db.selectFrom('webhook_endpoints').select('failing_since').executeTakeFirstOrThrow();
    expect(row.failing_since).toBeNull();
  });

  it('redelivers by hand with the same webhook-id', async () => {
    const server = await receiver();
    const endpoint = await createWebhook(`${server.url}/again`, { events: ['job.created'] });
    loop();
    await createJob(context, tenant.project, { prompt: 'Again' });
    const [first] = await until(
      () => deliveries(endpoint.id),
      (list) => list[0]?.status === 'delivered',
    );
    const response = await app.inject({
      method: 'POST',
      url: `/v2/agent/${tenant.project.id}/webhooks/${endpoint.id}/deliveries/${first.id}/redeliver`,
      headers: tenant.auth,
    });
    expect(response.statusCode, response.body).toBe(200);
    const received = await server.waitFor(2);
    expect(received.map((request) => request.headers['webhook-id'])).toEqual([first.id, first.id]);
    const [again] = await until(
      () => deliveries(endpoint.id),
      (list) => list[0]?.attempts === 2 && list[0].status === 'delivered',
    );
    expect(again.log).toHaveLength(2);
    const unknown = await app.inject({
      method: 'POST',
      url: `/v2/agent/${tenant.project.id}/webhooks/${endpoint.id}/deliveries/msg_01JDQ3M4Z8K9V2N6R5T7W1X0YA/redeliver`,
      headers: tenant.auth,
    });
    expect(unknown.statusCode).toBe(404);
  });

  it('keeps delivered and failed deliveries in the log for QUIRE_WEBHOOK_LOG_DAYS, pending ones until sent', async () => {
    const server = await receiver();
    const endpoint = await createWebhook(`${server.url}/log`, { events: ['job.created'] });
    const deliveryLoop = loop();
    await createJob(context, tenant.project, { prompt: 'Logged' });
    await until(
      () => deliveries(endpoint.id),
      (list) => list[0]?.status === 'delivered',
    );
    await deliveryLoop.stop();
    await createJob(context, tenant.project, { prompt: 'Still pending' });
    expect(await deliveryLoop.prune(Date.now() + 29 * 86_400_000)).toBe(0);
    expect(await deliveryLoop.prune(Date.now() + 31 * 86_400_000)).toBe(1);
    const left = await deliveries(endpoint.id);
    expect(left.map((delivery) => delivery.status)).toEqual(['pending']);
    expect(await storage.db.selectFrom('webhook_attempts').select('attempt').execute()).toEqual([]);
  });

  it('rotates the secret: the new one is shown once, and both sign during the grace period', async () => {
    const server = await receiver();
    const endpoint = await createWebhook(`${server.url}/rotate`, { events: ['job.created'] });
    const rotated = await app.inject({ method: 'POST', url: `/v2/agent/${tenant.project.id}/webhooks/${endpoint.id}/rotate-secret`, headers: tenant.auth });
    expect(rotated.statusCode).toBe(200);
    const secret = rotated.json<{ secret: string }>().secret;
    expect(secret).toMatch(/^whsec_/);
    expect(secret).not.toBe(endpoint.secret);
    loop();
    await createJob(context, tenant.project, { prompt: 'Rotated' });
    const [received] = await server.waitFor(1);
    const headers = received.headers as Record<string, string>;
    expect(headers['webhook-signature'].split(' ')).toHaveLength(2);
    expect(new Webhook(secret).verify(received.body, headers)).toMatchObject({ type: 'job.created' });
    expect(new Webhook(endpoint.secret).verify(received.body, headers)).toMatchObject({ type: 'job.created' });
  });

  it('refuses a private address again at delivery time, when the setting no longer allows it', async () => {
    const server = await receiver();
    const endpoint = await createWebhook(`${server.url}/private`, { events: ['job.created'] });
    loop(storage, { webhooksAllowPrivate: false });
    await createJob(context, tenant.project, { prompt: 'Private' });
    const [delivery] = await until(
      () => deliveries(endpoint.id),
      (list) => (list[0]?.log.length ?? 0) > 0,
    );
    expect(delivery.log[0]).toMatchObject({ statusCode: null });
    expect(delivery.log[0].error).toMatch(/127\.0\.0\.1, a loopback, private/);
    expect(server.received).toHaveLength(0);
  });

  it.runIf(database.dialect === 'postgres')('wakes the delivery loop of another process at once when a delivery is queued through the API', async () => {
    const server = await receiver();
    const endpoint = await createWebhook(`${server.url}/notified`, { events: ['job.created'] });
    // An API process without a worker, and a worker process that looks for deliveries only every 10 s.
    const api = await startServiceProcess({ ...storage.location.env, SERVICE_WORKER: '0', QUIRE_WEBHOOKS_ALLOW_PRIVATE: 'true' });
    cleanups.push(() => api.stop());
    const worker = await startServiceProcess({
      ...storage.location.env,
      SERVICE_API: '0',
      QUIRE_WEBHOOKS_ALLOW_PRIVATE: 'true',
      QUIRE_WEBHOOK_POLL_MS: '10000',
    });
    cleanups.push(() => worker.stop());
    const created = await fetch(`${api.url}/v2/agent/${tenant.project.id}/job`, {
      method: 'POST',
      headers: { ...tenant.auth, 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: 'Notify' }),
    });
    expect(created.status).toBe(201);
    const [first] = await until(
      () => deliveries(endpoint.id),
      (list) => list[0]?.status === 'delivered',
    );
    // A redelivery queued by the API process: only its notification can wake the worker's loop before its next look.
    const started = Date.now();
    const redeliver = await fetch(`${api.url}/v2/agent/${tenant.project.id}/webhooks/${endpoint.id}/deliveries/${first.id}/redeliver`, {
      method: 'POST',
      headers: tenant.auth,
    });
    expect(redeliver.status).toBe(200);
    await server.waitFor(2);
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it('never delivers one attempt twice when two delivery loops share the database', async () => {
    // Slow answers keep each loop's slots busy, so no single loop can take every delivery and the loops really race.
    const server = await receiver(() => ({ status: 200, delayMs: 200 }));
    const endpoints = [];
    for (let index = 0; index < 5; index++) endpoints.push(await createWebhook(`${server.url}/shared/${index}`, { events: ['job.created'] }));
    // Two more processes with workers (so with delivery loops), as `quire worker` runs them, beside this one's loop.
    for (let index = 0; index < 2; index++) {
      const process = await startServiceProcess({
        ...storage.location.env,
        SERVICE_API: '0',
        QUIRE_WEBHOOKS_ALLOW_PRIVATE: 'true',
        QUIRE_WEBHOOK_POLL_MS: '20',
        QUIRE_WEBHOOK_CONCURRENCY: '10',
      });
      cleanups.push(() => process.stop());
    }
    // A timed-out attempt is sent again (at least once); on a loaded machine 400 ms is too short to tell that from a double delivery.
    // Not woken by this process's events either, so that all three loops race for the same rows by polling.
    loop(storage, { webhookTimeoutMs: 10_000, webhookConcurrency: 10 }, false);
    for (let index = 0; index < 20; index++) await createJob(context, tenant.project, { prompt: `Job ${index}` });
    await server.waitFor(100);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const ids = server.received.map((request) => request.headers['webhook-id']);
    expect(ids).toHaveLength(100);
    expect(new Set(ids).size).toBe(100);
    const attempts = await storage.db.selectFrom('webhook_attempts').select(['attempt', 'status_code', 'sent_by']).execute();
    expect(attempts).toHaveLength(100);
    expect(new Set(attempts.map((attempt) => attempt.sent_by)).size).toBeGreaterThan(1);
    expect(attempts.every((attempt) => attempt.attempt === 1 && attempt.status_code === 200)).toBe(true);
  });
});
