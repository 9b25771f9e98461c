import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { databaseEnvironment } from './jobs.ts';
import { startQuireServer } from './processes.ts';
import { percentile, type BenchSuite, type Report } from './report.ts';

const endpointCount = Number(process.env.QUIRE_BENCH_WEBHOOK_ENDPOINTS ?? 100);
/** Each job makes two status changes (created, completed). */
const jobCount = Number(process.env.QUIRE_BENCH_WEBHOOK_JOBS ?? 100);
const jobIntervalMs = Number(process.env.QUIRE_BENCH_WEBHOOK_INTERVAL_MS ?? 500);

/** One HTTP server answering 200 on every path: the 100 endpoints. Records when each delivery arrived after its event. */
async function startReceiver() {
  const latencies: number[] = [];
  const seen = new Set<string>();
  let duplicates = 0;
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const arrived = Date.now();
      response.writeHead(204).end();
      if (request.url === '/reference') return;
      const key = `${request.headers['webhook-id']} ${request.url}`;
      if (seen.has(key)) duplicates += 1;
      seen.add(key);
      const { timestamp } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { timestamp: string };
      latencies.push(arrived - Date.parse(timestamp));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    latencies,
    duplicates: () => duplicates,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function run(report: Report): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'quire-bench-webhooks-'));
  const receiver = await startReceiver();
  const quire = await startQuireServer('bench/jobs-server.ts', ['quire'], {
    ...databaseEnvironment(undefined, dataDir),
    QUIRE_WEBHOOKS_ALLOW_PRIVATE: 'true',
  });
  try {
    const { url, projectId, key } = quire.info;
    const post = (path: string, body: unknown) =>
      fetch(`${url}/v2/agent/${projectId}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    for (let index = 0; index < endpointCount; index++) {
      const response = await post('/webhooks', { url: `${receiver.url}/endpoint/${index}`, events: ['job.created', 'job.completed'] });
      if (response.status !== 201) throw new Error(`creating an endpoint answered ${response.status}: ${await response.text()}`);
    }
    // The reference: the same receiver, a direct POST round trip from here.
    const reference: number[] = [];
    for (let index = 0; index < 300; index++) {
      const start = performance.now();
      await fetch(`${receiver.url}/reference`, { method: 'POST', body: '{}' }).then((response) => response.arrayBuffer());
      reference.push(performance.now() - start);
    }
    reference.sort((a, b) => a - b);

    for (let index = 0; index < jobCount; index++) {
      const response = await post('/job', { prompt: `Webhook bench ${index}` });
      if (response.status !== 201) throw new Error(`creating a job answered ${response.status}`);
      await new Promise((resolve) => setTimeout(resolve, jobIntervalMs));
    }
    const expected = jobCount * 2 * endpointCount;
    const deadline = Date.now() + 120_000;
    while (receiver.latencies.length < expected && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    const latencies = [...receiver.latencies].sort((a, b) => a - b);
    const p50 = percentile(latencies, 0.5);
    const p99 = percentile(latencies, 0.99);
    const label = `${jobCount * 2} status changes × ${endpointCount} endpoints, a job every ${jobIntervalMs} ms`;
    report.add({
      name: `deliveries received of ${expected} (${label})`,
      value: latencies.length,
      unit: 'deliveries',
      target: { text: `= ${expected}`, met: latencies.length === expected },
    });
    report.add({ name: 'duplicate deliveries', value: receiver.duplicates(), unit: 'deliveries' });
    report.add({
      name: 'status change → delivery received p50',
      value: p50,
      unit: 'ms',
      reference: { name: 'direct POST round trip p50', value: percentile(reference, 0.5) },
      target: { text: '≤ 1000 ms', met: p50 <= 1000 },
    });
    report.add({
      name: 'status change → delivery received p99',
      value: p99,
      unit: 'ms',
      reference: { name: 'direct POST round trip p99', value: percentile(reference, 0.99) },
      target: { text: '≤ 3000 ms', met: p99 <= 3000 },
    });
  } finally {
    await quire.stop();
    await receiver.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export const webhooksBench: BenchSuite = {
  name: 'webhooks',
  description: 'signed webhook deliveries to 100 endpoints on the embedded SQLite default',
  run,
};
