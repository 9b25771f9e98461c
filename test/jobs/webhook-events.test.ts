import pino from 'pino';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEndpoint } from '../../src/jobs/webhooks/endpoints.ts';
import { claimDeliveries } from '../../src/jobs/webhooks/claim.ts';
import { DeliveryLoop } from '../../src/jobs/webhooks/loop.ts';
import { JobFailure, type JobRun } from '../../src/jobs/runner.ts';
import { archiveJob, createJob, followUp } from '../../src/jobs/service.ts';
import { cancelJob } from '../../src/jobs/cancel.ts';
import { startService, type RunningService } from '../../src/server/service.ts';
import type { Storage } from '../../src/storage/dialect.ts';
import { createTenant, scriptedAgent, testConfig, type Tenant } from '../support/app.ts';
import { testDatabases } from '../support/storage.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts';

interface Event {
  type: string;
  data: { job: { id: string; status: string; prLink: string | null; error: string | null } };
}

/**
 * The job changes that announce themselves, through the service as deployed (worker and delivery
 * loop in one process): each delivery is written with its change and arrives signed.
 */
describe.each(testDatabases)('job events as webhooks on $dialect', (database) => {
  let storage: Storage;
  let service: RunningService;
  let tenant: Tenant;
  let receiver: WebhookReceiver;
  let secret: string;
  const outcomes: ((run: JobRun) => Promise<{ prLink: string | null }>)[] = [];

  beforeAll(async () => {
    storage = await database.open();
    const config = testConfig({ webhooksAllowPrivate: true, webhookPollMs: 50, workerPollMs: 50 });
    const agent = scriptedAgent({ run: (run) => (outcomes.shift() ?? (async () => ({ prLink: null })))(run) });
    service = await startService({ config, api: false, worker: true, storage, agent, logger: pino({ level: 'silent' }) });
    tenant = await createTenant(storage);
    receiver = await startWebhookReceiver();
    ({ secret } = await createEndpoint({ db: storage.db, config }, tenant.project, { url: `${receiver.url}/events` }));
  });
  afterAll(async () => {
    await service.stop();
    await receiver.close();
    await storage.close();
  });

  /** The events received after the first `from`, verified with the endpoint's secret. */
  async function events(from: number, count: number): Promise<Event[]> {
    const received = await receiver.waitFor(from + count);
    return received.slice(from).map((request) => new Webhook(secret).verify(request.body, request.headers as Record<string, string>) as Event);
  }

  it('announces created, completed and pull_request.opened once, then completed on a follow-up, then archived', async () => {
    const link = 'https://github.com/acme/docs/pull/7';
    outcomes.push(
      async () => ({ prLink: link }),
      async () => ({ prLink: link }),
    );
    const { job } = await createJob(service.context, tenant.project, { prompt: 'Add a page' });
    const first = await events(0, 3);
    expect(first.map((event) => event.type).sort()).toEqual(['job.completed', 'job.created', 'pull_request.opened']);
    expect(first.find((event) => event.type === 'pull_request.opened')?.data.job).toMatchObject({ id: job.id, status: 'completed', prLink: link });
    await followUp(service.context, tenant.project, job.id, { prompt: 'One more change' });
    const [again] = await events(3, 1);
    expect(again).toMatchObject({ type: 'job.completed', data: { job: { id: job.id, prLink: link } } });
    await archiveJob(service.context, tenant.project, job.id);
    const [archived] = await events(4, 1);
    expect(archived).toMatchObject({ type: 'job.archived', data: { job: { id: job.id, status: 'archived' } } });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(receiver.received).toHaveLength(5);
  });

  it('announces job.failed with the error', async () => {
    outcomes.push(async () => {
      throw new JobFailure('The repository could not be cloned.');
    });
    const before = receiver.received.length;
    const { job } = await createJob(service.context, tenant.project, { prompt: 'Fail' });
    const received = await events(before, 2);
    expect(received.find((event) => event.type === 'job.failed')?.data.job).toMatchObject({
      id: job.id,
      status: 'failed',
      error: 'The repository could not be cloned.',
    });
  });

  it('announces job.cancelled, and no job.failed, when a running job is cancelled', async () => {
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    // Runs until the cancel reaches it, as an agent does: one that ignored it would hold the worker's stop for its grace period.
    outcomes.push(async ({ signal }) => {
      started();
      await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
      throw signal.reason;
    });
    const before = receiver.received.length;
    const { job } = await createJob(service.context, tenant.project, { prompt: 'Run until cancelled' });
    await running;
    await cancelJob(service.context, tenant.project, job.id, 'a test');
    const received = await events(before, 2);
    expect(received.map((event) => event.type)).toEqual(['job.created', 'job.cancelled']);
    expect(received[1].data.job).toMatchObject({ id: job.id, status: 'failed' });
    expect(received[1].data.job.error).toContain('cancelled by a test');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.received).toHaveLength(before + 2);
  });

  it('sends again an attempt whose process died holding it, once its lease expires', async () => {
    const before = receiver.received.length;
    await service.deliveries!.stop();
    const { job } = await createJob(service.context, tenant.project, { prompt: 'Crash while sending' });
    for (let done = false; !done; await new Promise((resolve) => setTimeout(resolve, 25))) {
      done = (await storage.db.selectFrom('jobs').select('status').where('id', '=', job.id).executeTakeFirstOrThrow()).status !== 'active';
    }
    // A process claims both attempts (created, completed) and dies: its lease of 1 ms expires at once.
    const claimed = await claimDeliveries(storage, 'wrk_dead', 10, 1);
    expect(claimed).toHaveLength(2);
    const loop = new DeliveryLoop({ storage, config: service.context.config, logger: pino({ level: 'silent' }) });
    loop.start();
    try {
      const resent = await receiver.waitFor(before + 2);
      expect(
        resent
          .slice(before)
          .map((request) => request.headers['webhook-id'])
          .sort(),
      ).toEqual(claimed.map((entry) => entry.id).sort());
      const rows = () =>
        storage.db
          .selectFrom('webhook_deliveries')
          .select(['attempts', 'status'])
          .where(
            'id',
            'in',
            claimed.map((entry) => entry.id),
          )
          .execute();
      // Recorded just after the answer arrives.
      while ((await rows()).some((row) => row.status === 'pending')) await new Promise((resolve) => setTimeout(resolve, 25));
      expect(await rows()).toEqual([
        { attempts: 2, status: 'delivered' },
        { attempts: 2, status: 'delivered' },
      ]);
    } finally {
      await loop.stop();
    }
  });
});
