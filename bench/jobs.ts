import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { loadConfig } from '../src/config/config.ts';
import { openStorage } from '../src/storage/open.ts';
import { startBenchProcess, startQuireServer } from './processes.ts';
import { percentile, type BenchSuite, type Report } from './report.ts';

const seconds = Number(process.env.QUIRE_BENCH_SECONDS ?? 5);

async function throughput(url: string, headers: Record<string, string>): Promise<number> {
  await autocannon({ url, headers, connections: 10, duration: 1 });
  const result = await autocannon({ url, headers, connections: 10, duration: seconds });
  if (result.non2xx > 0) throw new Error(`${url} answered ${result.non2xx} non-2xx responses`);
  return result.requests.average;
}

async function latencies(count: number, request: () => Promise<Response>): Promise<number[]> {
  const times: number[] = [];
  for (let index = 0; index < count; index++) {
    const start = performance.now();
    const response = await request();
    await response.arrayBuffer();
    if (!response.ok) throw new Error(`request failed with ${response.status}`);
    times.push(performance.now() - start);
  }
  return times.sort((a, b) => a - b);
}

/** Environment of a Quire process on `DATABASE_URL` (PostgreSQL) or a fresh SQLite directory. */
export function databaseEnvironment(databaseUrl: string | undefined, dataDir: string): Record<string, string> {
  return { ...(databaseUrl ? { DATABASE_URL: databaseUrl } : { QUIRE_DATA_DIR: dataDir }), QUIRE_JOB_RATE_LIMIT: '1000000000', QUIRE_WORKER_POLL_MS: '200' };
}

async function run(report: Report): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'quire-bench-jobs-'));
  const env = databaseEnvironment(undefined, dataDir);
  const quire = await startQuireServer('bench/jobs-server.ts', ['quire'], { ...env, QUIRE_WORKER_CONCURRENCY: '4' });
  const bare = await startBenchProcess('bench/jobs-server.ts', ['bare'], {});
  try {
    const { url, projectId, key, jobId } = quire.info;
    const auth = { authorization: `Bearer ${key}` };
    // Alternate the two and keep each one's best round, so a burst of load elsewhere on the machine
    // does not decide the ratio.
    let quireRate = 0;
    let bareRate = 0;
    for (let round = 0; round < 2; round++) {
      quireRate = Math.max(quireRate, await throughput(`${url}/v2/agent/${projectId}/job/${jobId}`, auth));
      bareRate = Math.max(bareRate, await throughput(`${bare.info.url}/v2/agent/${projectId}/job/${jobId}`, {}));
    }
    report.add({
      name: 'GET job (auth + lookups), requests/s',
      value: quireRate,
      unit: 'req/s',
      reference: { name: 'bare Fastify, same JSON', value: bareRate },
    });
    const ratio = quireRate / bareRate;
    report.add({ name: 'GET job throughput ÷ bare Fastify', value: ratio, unit: '×', target: { text: '≥ 0.5', met: ratio >= 0.5 } });

    const createTimes = await latencies(300, () =>
      fetch(`${url}/v2/agent/${projectId}/job`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ prompt: 'Benchmark job' }),
      }),
    );
    const bareTimes = await latencies(300, () => fetch(`${bare.info.url}/v2/agent/${projectId}/job/${jobId}`));
    report.add({
      name: 'create job latency p50',
      value: percentile(createTimes, 0.5),
      unit: 'ms',
      reference: { name: 'bare Fastify GET p50', value: percentile(bareTimes, 0.5) },
    });
    report.add({
      name: 'create job latency p99',
      value: percentile(createTimes, 0.99),
      unit: 'ms',
      reference: { name: 'bare Fastify GET p99', value: percentile(bareTimes, 0.99) },
    });

    // Let the worker drain, then read how long each job waited between commit and start.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const storage = await openStorage(loadConfig({ ...process.env, ...env }), { migrate: false });
    const rows = await storage.db
      .selectFrom('jobs')
      .innerJoin('job_messages', 'job_messages.job_id', 'jobs.id')
      .select(['jobs.created_at as created', 'job_messages.created_at as started'])
      .where('job_messages.content', 'like', '%job-started%')
      .execute();
    await storage.close();
    const waits = rows.map((row) => row.started - row.created).sort((a, b) => a - b);
    report.add({
      name: `create → worker start p50 (${waits.length} jobs)`,
      value: percentile(waits, 0.5),
      unit: 'ms',
      target: { text: '≤ 50 ms', met: percentile(waits, 0.5) <= 50 },
    });
    report.add({ name: 'create → worker start p99', value: percentile(waits, 0.99), unit: 'ms' });
  } finally {
    await quire.stop();
    await bare.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export const jobsBench: BenchSuite = { name: 'jobs', description: 'agent-job API and queue on the embedded SQLite default', run };
