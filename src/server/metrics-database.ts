import { Gauge, type Registry } from 'prom-client';
import type { Storage } from '../storage/dialect.ts';
import type { JobStatus } from '../storage/tables/jobs.ts';
import type { DeliveryStatus } from '../storage/tables/webhooks.ts';

const jobStatuses: JobStatus[] = ['active', 'completed', 'failed', 'archived'];
const deliveryStatuses: DeliveryStatus[] = ['pending', 'delivered', 'failed'];

/** Row counts by a status column, with every known status present (0 when it has no rows). */
function byStatus<S extends string>(known: S[], rows: { status: S; count: number | string | bigint }[]): Map<S, number> {
  const counts = new Map(known.map((status) => [status, 0]));
  for (const row of rows) counts.set(row.status, Number(row.count));
  return counts;
}

/**
 * Gauges read from the database when Prometheus scrapes, so every process reports the state of the
 * whole database (the same figures whichever replica is scraped), never a count it kept itself.
 */
export function registerDatabaseGauges(registry: Registry, storage: Storage): void {
  const { db } = storage;
  const registers = [registry];

  // First: a gauge's synchronous collect runs as the scrape starts, before the queries below take connections.
  const poolUse = storage.poolUse;
  if (poolUse) {
    const pool = (name: 'total' | 'idle' | 'waiting', help: string) =>
      new Gauge({
        name: `quire_database_pool_${name}`,
        help,
        registers,
        collect() {
          this.set(poolUse()[name]);
        },
      });
    pool('total', 'PostgreSQL connections this process holds open, idle or in use.');
    pool('idle', 'PostgreSQL connections of this process that are open and idle.');
    pool('waiting', 'Queries of this process waiting for a PostgreSQL connection.');
  }

  new Gauge({
    name: 'quire_jobs',
    help: 'Agent jobs in the database, by status.',
    labelNames: ['status'],
    registers,
    async collect() {
      const rows = await db
        .selectFrom('jobs')
        .select((eb) => ['status', eb.fn.countAll().as('count')])
        .groupBy('status')
        .execute();
      for (const [status, count] of byStatus(jobStatuses, rows)) this.set({ status }, count);
    },
  });

  // Each gauge asks on its own: prom-client reads all of them at once, so one could not wait for another's query.
  const waiting = (now: number) =>
    db
      .selectFrom('job_queue')
      .select((eb) => [eb.fn.countAll().as('count'), eb.fn.min('available_at').as('oldest')])
      .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', now)]))
      .executeTakeFirstOrThrow();
  new Gauge({
    name: 'quire_job_queue_depth',
    help: 'Job runs waiting for a worker (not held by a live lease).',
    registers,
    async collect() {
      this.set(Number((await waiting(Date.now())).count));
    },
  });
  new Gauge({
    name: 'quire_job_queue_oldest_age_seconds',
    help: 'How long the oldest waiting job run has been due, in seconds (0 when none waits).',
    registers,
    async collect() {
      const now = Date.now();
      const { oldest } = await waiting(now);
      this.set(oldest === null ? 0 : Math.max(0, now - Number(oldest)) / 1000);
    },
  });
  new Gauge({
    name: 'quire_job_queue_running',
    help: 'Job runs held by a worker now.',
    registers,
    async collect() {
      const running = await db
        .selectFrom('job_queue')
        .select((eb) => eb.fn.countAll().as('count'))
        .where('locked_until', '>=', Date.now())
        .executeTakeFirstOrThrow();
      this.set(Number(running.count));
    },
  });

  new Gauge({
    name: 'quire_webhook_deliveries',
    help: 'Webhook deliveries in the delivery log, by status (delivered and failed ones are kept QUIRE_WEBHOOK_LOG_DAYS).',
    labelNames: ['status'],
    registers,
    async collect() {
      const rows = await db
        .selectFrom('webhook_deliveries')
        .select((eb) => ['status', eb.fn.countAll().as('count')])
        .groupBy('status')
        .execute();
      for (const [status, count] of byStatus(deliveryStatuses, rows)) this.set({ status }, count);
    },
  });
}
