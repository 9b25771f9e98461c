import { availableParallelism } from 'node:os';
import autocannon from 'autocannon';
import { newId } from '../src/lib/ids.ts';
import { jobsChannel } from '../src/jobs/queue/enqueue.ts';
import { newJobRow } from '../src/jobs/service.ts';
import { loadConfig } from '../src/config/config.ts';
import { openStorage, type Storage } from '../src/storage/open.ts';
import { datasetShape } from './analytics-data.ts';
import { ingest, ingestionBodies, visitorsPage, waitForFolds, type VisitorsAnswer } from './analytics.ts';
import { freshDatabase, postgresReachable, type BenchDatabase } from './databases.ts';
import { type BenchProcess, processesCpuSeconds, startQuireServer } from './processes.ts';
import type { BenchSuite, Report } from './report.ts';

const seconds = Number(process.env.QUIRE_BENCH_SECONDS ?? 5);
const queueJobs = Number(process.env.QUIRE_BENCH_QUEUE_JOBS ?? 3000);
/** QUIRE_BENCH_SCALE_PART=creates|queue|analytics runs one part of this suite. */
const part = process.env.QUIRE_BENCH_SCALE_PART;
const runs = (name: 'creates' | 'queue' | 'analytics') => part === undefined || part === name;
// Real limits (100 creates per project per hour), spread over enough projects for the load.
const projects = 400;
const quiet = { LOG_LEVEL: 'silent', QUIRE_WORKER_POLL_MS: '50' };
// The analytics issue's dataset (10 million views over 90 days) unless QUIRE_BENCH_SCALE shrinks it.
const analyticsShape = datasetShape(Number(process.env.QUIRE_BENCH_SCALE ?? '1'));
/** After the last fold, the range index is rebuilt once folds have been quiet for a second. */
const settleMs = 3000;

async function startProcesses(database: BenchDatabase, count: number, env: Record<string, string>): Promise<BenchProcess[]> {
  // The first process creates the tenant and its projects; the others join them.
  const first = await startQuireServer('bench/jobs-server.ts', ['quire'], { ...database.env, ...quiet, BENCH_PROJECTS: String(projects), ...env });
  const rest = await Promise.all(
    Array.from({ length: count - 1 }, () => startQuireServer('bench/jobs-server.ts', ['quire'], { ...database.env, ...quiet, ...env })),
  );
  return [first, ...rest];
}

/** Job creates per second with `count` API processes sharing the database, over many projects. */
async function createThroughput(database: BenchDatabase, count: number): Promise<number> {
  const apis = await startProcesses(database, count, { BENCH_WORKER: '0' });
  try {
    const { projectIds, key } = apis[0].info;
    let next = 0;
    const results = await Promise.all(
      apis.map((api) =>
        autocannon({
          url: api.info.url,
          connections: 8,
          duration: seconds,
          requests: [
            {
              method: 'POST',
              headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
              body: JSON.stringify({ prompt: 'Benchmark job' }),
              setupRequest: (request) => ({ ...request, path: `/v2/agent/${projectIds![next++ % projectIds!.length]}/job` }),
            },
          ],
        }),
      ),
    );
    const failed = results.reduce((sum, result) => sum + result.non2xx + result.errors, 0);
    const total = results.reduce((sum, result) => sum + result.requests.total, 0);
    if (failed > total / 100) throw new Error(`${failed} of ${total} creates failed (is the load beyond ${projects * 100} creates per hour?)`);
    return results.reduce((sum, result) => sum + result.requests.average, 0);
  } finally {
    await Promise.all(apis.map((api) => api.stop()));
  }
}

/** Puts `count` jobs in the queue at once, as a burst of creates would. */
async function seedQueue(storage: Storage, count: number): Promise<void> {
  const project = await storage.db.selectFrom('projects').selectAll().executeTakeFirstOrThrow();
  const now = Date.now();
  await storage.db.transaction().execute(async (trx) => {
    for (let offset = 0; offset < count; offset += 500) {
      const ids = Array.from({ length: Math.min(500, count - offset) }, () => newId('job'));
      await trx
        .insertInto('jobs')
        .values(
          ids.map((id) =>
            newJobRow(
              id,
              project,
              { prompt: 'queued', repository: 'https://github.com/acme/docs', ref: 'main', model: 'bench', branch: `quire/${id}`, draft: 0, origin: 'api' },
              now,
            ),
          ),
        )
        .execute();
      await trx
        .insertInto('job_messages')
        .values(ids.map((id) => ({ job_id: id, seq: 0, role: 'user' as const, content: '{"text":"queued"}', created_at: now })))
        .execute();
      await trx
        .insertInto('job_queue')
        .values(ids.map((id) => ({ id: newId('run'), job_id: id, max_attempts: 3, available_at: now, locked_by: null, locked_until: null, created_at: now })))
        .execute();
    }
    await storage.notify(trx, jobsChannel);
  });
}

/** Jobs per second claimed, run (no-op) and completed by `count` worker processes. */
async function queueThroughput(database: BenchDatabase, count: number): Promise<number> {
  const workers = await startProcesses(database, count, { BENCH_API: '0', QUIRE_WORKER_CONCURRENCY: '8' });
  const storage = await openStorage(loadConfig({ ...process.env, ...database.env }), { migrate: false });
  try {
    const started = performance.now();
    await seedQueue(storage, queueJobs);
    for (;;) {
      const left = await storage.db
        .selectFrom('job_queue')
        .select((eb) => eb.fn.countAll<number>().as('count'))
        .executeTakeFirstOrThrow();
      if (Number(left.count) === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return queueJobs / ((performance.now() - started) / 1000);
  } finally {
    await storage.close();
    await Promise.all(workers.map((worker) => worker.stop()));
  }
}

interface AnalyticsRun {
  eventsPerSecond: number;
  /** CPU time per event during ingestion, in microseconds: this process (the client), the API processes, a local PostgreSQL server. */
  cpu: { client: number; api: number; database: number };
  first?: VisitorsAnswer;
  next?: VisitorsAnswer;
}

/**
 * Ingests the dataset through `count` API processes sharing the database (requests spread over
 * them); with `query`, then times the 90-day visitors export, first and next page, once the
 * ingestion has settled.
 */
async function analyticsOn(database: BenchDatabase, count: number, query: boolean): Promise<AnalyticsRun> {
  const first = await startQuireServer('bench/analytics-server.ts', [], { ...database.env, ...quiet });
  const rest = await Promise.all(Array.from({ length: count - 1 }, () => startQuireServer('bench/analytics-server.ts', [], { ...database.env, ...quiet })));
  const apis = [first, ...rest];
  try {
    const { projectId, key } = first.info as { projectId: string; key: string };
    const bodies = ingestionBodies(analyticsShape);
    const before = { client: process.cpuUsage(), api: apis.map((api) => api.cpuSeconds()), database: processesCpuSeconds('postgres') };
    const eventsPerSecond = await ingest(
      apis.map((api) => api.info.url),
      projectId,
      key,
      bodies,
    );
    const client = process.cpuUsage(before.client);
    const perEvent = (seconds: number) => (seconds * 1e6) / analyticsShape.views;
    const cpu = {
      client: perEvent((client.user + client.system) / 1e6),
      api: perEvent(apis.reduce((sum, api, index) => sum + api.cpuSeconds() - before.api[index]!, 0)),
      database: database.name === 'postgres' ? perEvent(processesCpuSeconds('postgres') - before.database) : 0,
    };
    if (!query) return { eventsPerSecond, cpu };
    await waitForFolds(database.env);
    await new Promise((resolve) => setTimeout(resolve, settleMs));
    return {
      eventsPerSecond,
      cpu,
      first: await visitorsPage(first.info.url, projectId, key, analyticsShape, 90, 0),
      next: await visitorsPage(first.info.url, projectId, key, analyticsShape, 90, 50),
    };
  } finally {
    await Promise.all(apis.map((api) => api.stop()));
  }
}

async function measure<T>(name: BenchDatabase['name'], action: (database: BenchDatabase) => Promise<T>): Promise<T> {
  const database = await freshDatabase(name);
  try {
    return await action(database);
  } finally {
    await database.drop();
  }
}

async function run(report: Report): Promise<void> {
  if (!(await postgresReachable())) {
    process.stdout.write('  PostgreSQL is not reachable (QUIRE_BENCH_POSTGRES_URL); scale-out figures skipped.\n');
    return;
  }
  if (runs('creates')) await creates(report);
  if (runs('queue')) await queue(report);
  if (runs('analytics')) await analytics(report);
}

async function creates(report: Report): Promise<void> {
  const sqliteCreates = await measure('sqlite', (database) => createThroughput(database, 1));
  for (const count of [1, 2, 4]) {
    const creates = await measure('postgres', (database) => createThroughput(database, count));
    report.add({
      name: `job creates/s, PostgreSQL, ${count} API process${count > 1 ? 'es' : ''}`,
      value: creates,
      unit: 'jobs/s',
      reference: { name: 'SQLite, 1 process', value: sqliteCreates },
    });
  }
}

async function queue(report: Report): Promise<void> {
  const sqliteQueue = await measure('sqlite', (database) => queueThroughput(database, 1));
  for (const count of [1, 2, 4]) {
    const queue = await measure('postgres', (database) => queueThroughput(database, count));
    report.add({
      name: `queue jobs/s (no-op runner), PostgreSQL, ${count} worker${count > 1 ? 's' : ''}`,
      value: queue,
      unit: 'jobs/s',
      reference: { name: 'SQLite, 1 worker', value: sqliteQueue },
    });
  }
}

async function analytics(report: Report): Promise<void> {
  process.stdout.write(`  analytics dataset: ${analyticsShape.views.toLocaleString('en-US')} views over ${analyticsShape.days} days (QUIRE_BENCH_SCALE)\n`);
  const sqlite = await measure('sqlite', (database) => analyticsOn(database, 1, true));
  const postgres = await measure('postgres', (database) => analyticsOn(database, 1, true));
  const postgresTwo = await measure('postgres', (database) => analyticsOn(database, 2, false));
  const sqliteIngest = { name: 'SQLite, 1 process', value: sqlite.eventsPerSecond };
  // Client, API and database share this machine's cores, and one API process works on one thread
  // (its CPU time is nearly all its event loop's): the CPU each spends per event bounds the rate.
  const cores = availableParallelism();
  for (const [name, { cpu }] of [
    ['SQLite', sqlite],
    ['PostgreSQL, 1 API process', postgres],
  ] as const) {
    // The API process's parse threads run beside its event loop, so only the cores bound the sum.
    const bound = (cores * 1e6) / (cpu.client + cpu.api + cpu.database);
    process.stdout.write(
      `  CPU per ingested event, ${name}: client ${cpu.client.toFixed(1)} µs, API process ${cpu.api.toFixed(1)} µs, PostgreSQL server ${cpu.database.toFixed(1)} µs; ` +
        `at most ${Math.round(bound).toLocaleString('en-US')} events/s with all ${cores} cores busy\n`,
    );
  }
  report.add({ name: 'ingestion events/s, PostgreSQL, 1 API process', value: postgres.eventsPerSecond, unit: 'events/s', reference: sqliteIngest });
  report.add({ name: 'ingestion events/s, PostgreSQL, 2 API processes', value: postgresTwo.eventsPerSecond, unit: 'events/s', reference: sqliteIngest });
  const same =
    JSON.stringify(postgres.first!.body) === JSON.stringify(sqlite.first!.body) && JSON.stringify(postgres.next!.body) === JSON.stringify(sqlite.next!.body);
  report.add({
    name: `visitors 90 days, first page, PostgreSQL (answers ${same ? 'equal' : 'DIFFER from'} SQLite's)`,
    value: postgres.first!.elapsed,
    unit: 'ms',
    reference: { name: 'SQLite', value: sqlite.first!.elapsed },
  });
  report.add({
    name: 'visitors 90 days, next page, PostgreSQL',
    value: postgres.next!.elapsed,
    unit: 'ms',
    reference: { name: 'SQLite', value: sqlite.next!.elapsed },
  });
}

export const scaleBench: BenchSuite = {
  name: 'scale',
  description: `PostgreSQL scale-out beside the SQLite default (${seconds} s of creates over ${projects} projects, ${queueJobs} queued jobs, analytics ingestion and the 90-day visitors query; QUIRE_BENCH_SCALE_PART=creates|queue|analytics for one part)`,
  run,
};
