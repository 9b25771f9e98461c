import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJob } from '../../src/jobs/service.ts';
import { startService, type RunningService } from '../../src/server/service.ts';
import type { Storage } from '../../src/storage/dialect.ts';
import { createTenant, scriptedAgent, testApp, testConfig, testContext, type Tenant } from '../support/app.ts';
import { testDatabases } from '../support/storage.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts';

const token = 'metrics-token-for-tests-0123456789';

/** One sample of the Prometheus text `text`: the value of `name` with exactly `labels`, or undefined. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  const wanted = Object.entries(labels)
    .map(([key, value]) => `${key}="${value}"`)
    .sort()
    .join(',');
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const given = (match[2] ?? '')
      .split(/,(?=[a-zA-Z_]\w*=")/)
      .filter(Boolean)
      .sort()
      .join(',');
    if (given === wanted) return Number(match[3]);
  }
  return undefined;
}

async function waitUntil(check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe.each(testDatabases)('GET /metrics on $dialect', (database) => {
  let storage: Storage;
  let service: RunningService;
  let base: string;
  let tenant: Tenant;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    storage = await database.open();
    receiver = await startWebhookReceiver();
    service = await startService({
      config: testConfig({ metricsToken: token, webhooksAllowPrivate: true, webhookPollMs: 20, workerPollMs: 20 }),
      api: true,
      worker: true,
      storage,
      logger: pino({ level: 'silent' }),
      agent: scriptedAgent(),
    });
    base = service.url!;
    tenant = await createTenant(storage);
  });
  afterAll(async () => {
    await service?.stop();
    await receiver?.close();
    await storage?.close();
  });

  const scrape = async () => {
    const response = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${token}` } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/plain');
    return response.text();
  };

  it('answers 401 without the token or with a wrong one', async () => {
    for (const authorization of [undefined, `Bearer ${token}x`, 'Bearer ', token]) {
      const response = await fetch(`${base}/metrics`, { headers: authorization === undefined ? {} : { authorization } });
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toContain('Bearer');
      expect(await response.json()).toMatchObject({ code: 'unauthorized', error: expect.stringContaining('QUIRE_METRICS_TOKEN') });
    }
  });

  it('counts requests by route pattern and status, with their latency', async () => {
    const before = await scrape();
    const route = { method: 'GET', route: '/v2/agent/:projectId/jobs', status: '200' };
    const counted = (text: string) => sample(text, 'quire_http_requests_total', route) ?? 0;
    for (let index = 0; index < 3; index++) {
      const response = await fetch(`${base}/v2/agent/${tenant.project.id}/jobs`, { headers: tenant.auth });
      expect(response.status).toBe(200);
    }
    await fetch(`${base}/v2/agent/prj_nothing/jobs`, { headers: tenant.auth });
    await fetch(`${base}/no/such/page`);
    const after = await scrape();
    expect(counted(after) - counted(before)).toBe(3);
    expect(sample(after, 'quire_http_requests_total', { ...route, status: '404' })).toBeGreaterThanOrEqual(1);
    expect(sample(after, 'quire_http_requests_total', { method: 'GET', route: 'unmatched', status: '404' })).toBeGreaterThanOrEqual(1);
    expect(sample(after, 'quire_http_request_duration_seconds_count', route)).toBe(counted(after));
    expect(sample(after, 'quire_http_request_duration_seconds_bucket', { ...route, le: '+Inf' })).toBe(counted(after));
    // Ids and addresses never become labels.
    expect(after).not.toContain(tenant.project.id);
    expect(after).not.toContain('/no/such/page');
  });

  it('reports jobs by status and webhook deliveries by outcome from the database', async () => {
    const hook = await fetch(`${base}/v2/agent/${tenant.project.id}/webhooks`, {
      method: 'POST',
      headers: { ...tenant.auth, 'content-type': 'application/json' },
      body: JSON.stringify({ url: receiver.url, events: ['job.completed'] }),
    });
    expect(hook.status).toBe(201);
    const before = await scrape();
    expect(sample(before, 'quire_jobs', { status: 'completed' })).toBe(0);
    expect(sample(before, 'quire_webhook_deliveries', { status: 'delivered' })).toBe(0);
    const created = await fetch(`${base}/v2/agent/${tenant.project.id}/job`, {
      method: 'POST',
      headers: { ...tenant.auth, 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: 'Fix the typo' }),
    });
    expect(created.status).toBe(201);
    await waitUntil(async () => sample(await scrape(), 'quire_webhook_deliveries', { status: 'delivered' }) === 1);
    const after = await scrape();
    expect(sample(after, 'quire_jobs', { status: 'completed' })).toBe(1);
    expect(sample(after, 'quire_jobs', { status: 'active' })).toBe(0);
    expect(sample(after, 'quire_job_queue_depth')).toBe(0);
    expect(sample(after, 'quire_job_queue_oldest_age_seconds')).toBe(0);
    expect(sample(after, 'quire_webhook_deliveries', { status: 'pending' })).toBe(0);
    expect(receiver.received).toHaveLength(1);
  });

  it('counts ingested events accepted and rejected', async () => {
    const counted = (text: string, outcome: string) => sample(text, 'quire_ingest_events_total', { source: 'api', outcome });
    const before = await scrape();
    expect(counted(before, 'accepted')).toBe(0);
    expect(counted(before, 'rejected')).toBe(0);
    const response = await fetch(`${base}/v1/analytics/${tenant.project.id}/events`, {
      method: 'POST',
      headers: { ...tenant.auth, 'content-type': 'application/json' },
      body: JSON.stringify({ events: [{ path: '/guide', userAgent: 'Mozilla/5.0 Firefox/133.0' }, { path: '/api', userAgent: 'GPTBot/1.2' }, { nopath: 1 }] }),
    });
    expect(await response.json()).toMatchObject({ accepted: 2, rejected: 1 });
    const after = await scrape();
    expect(counted(after, 'accepted')).toBe(2);
    expect(counted(after, 'rejected')).toBe(1);
    expect(sample(after, 'quire_ingest_events_total', { source: 'tracker', outcome: 'accepted' })).toBe(0);
  });

  it(`reports database pool use ${database.dialect === 'postgres' ? 'from the pool' : 'not at all on SQLite'}`, async () => {
    const text = await scrape();
    if (database.dialect === 'postgres') {
      expect(sample(text, 'quire_database_pool_total')).toBeGreaterThanOrEqual(1);
      expect(sample(text, 'quire_database_pool_idle')).toBeGreaterThanOrEqual(0);
      expect(sample(text, 'quire_database_pool_waiting')).toBe(0);
    } else {
      expect(text).not.toContain('quire_database_pool');
    }
    expect(sample(text, 'process_cpu_user_seconds_total')).toBeGreaterThan(0);
  });
});

describe.each(testDatabases)('the job queue in /metrics on $dialect', (database) => {
  it('shows the waiting runs and how long the oldest has waited, and nothing without QUIRE_METRICS_TOKEN', async () => {
    const storage = await database.open();
    const apps = [await testApp(testContext(storage)), await testApp(testContext(storage, { config: { metricsToken: token } }))];
    try {
      const [off, on] = apps;
      const hidden = await off.inject({ url: '/metrics', headers: { authorization: `Bearer ${token}` } });
      expect(hidden.statusCode).toBe(404);
      expect(hidden.json()).toEqual({ code: 'not_found', error: expect.stringContaining('QUIRE_METRICS_TOKEN') });
      const reference = (await on.inject({ url: '/openapi.json' })).json<{ paths: Record<string, unknown> }>();
      expect(Object.keys(reference.paths)).not.toContain('/metrics');

      const tenant = await createTenant(storage);
      await createJob(testContext(storage), tenant.project, { prompt: 'Waits: no worker runs here' });
      await storage.db
        .updateTable('job_queue')
        .set({ available_at: Date.now() - 90_000 })
        .execute();
      const text = (await on.inject({ url: '/metrics', headers: { authorization: `Bearer ${token}` } })).body;
      expect(sample(text, 'quire_jobs', { status: 'active' })).toBe(1);
      expect(sample(text, 'quire_job_queue_depth')).toBe(1);
      expect(sample(text, 'quire_job_queue_running')).toBe(0);
      expect(sample(text, 'quire_job_queue_oldest_age_seconds')).toBeGreaterThanOrEqual(90);
      expect(sample(text, 'quire_job_queue_oldest_age_seconds')).toBeLessThan(120);
    } finally {
      for (const app of apps) await app.close();
      await storage.close();
    }
  });
});
