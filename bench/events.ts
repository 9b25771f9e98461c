import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pino from 'pino';
import { Agent } from 'undici';
import { createKey } from '../src/accounts/keys.ts';
import { createOrganization } from '../src/accounts/organizations.ts';
import { createProject } from '../src/accounts/projects.ts';
import { loadConfig } from '../src/config/config.ts';
import { createJob } from '../src/jobs/service.ts';
import { appendMessage } from '../src/jobs/transcript.ts';
import { readEventStream } from '../src/lib/event-stream.ts';
import { buildApp } from '../src/server/app.ts';
import { createContext } from '../src/server/context.ts';
import { openStorage } from '../src/storage/open.ts';
import { percentile, type BenchSuite, type Report } from './report.ts';

const subscribers = Number(process.env.QUIRE_BENCH_SUBSCRIBERS ?? 1000);
const eventCount = Number(process.env.QUIRE_BENCH_EVENTS ?? 50);

/**
 * 1,000 SSE clients on one job over real HTTP (API, hub and clients in this process, on the database of
 * DATABASE_URL or a fresh SQLite file): each event is recorded as the worker records it, and every client
 * notes when it arrives. Reference: a plain HTTP request round trip to the same server, measured while
 * the streams are open.
 */
async function run(report: Report): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'quire-bench-events-'));
  const config = loadConfig({ ...process.env, QUIRE_DATA_DIR: dataDir, LOG_LEVEL: 'silent' }, { port: 0 });
  const storage = await openStorage(config);
  const context = createContext(config, storage, {
    logger: pino({ level: 'silent' }),
    agent: { runner: { run: async () => ({ prLink: null }) }, modelFor: () => 'openai-compatible:bench', checkProject: () => null },
  });
  const app = await buildApp(context);
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  const dispatcher = new Agent({ connections: null, pipelining: 0 });
  try {
    const orgId = (await createOrganization(storage.db, 'Bench')).id;
    const project = await createProject(storage.db, orgId, { name: 'Docs', repository: 'https://github.com/acme/docs', ref: 'main' });
    const { key } = await createKey(storage.db, orgId, { scopes: ['read', 'write'] });
    const auth = { authorization: `Bearer ${key}` };
    const { job } = await createJob(context, project, { prompt: 'Benchmark the stream' });
    const streamUrl = `${url}/v2/agent/${project.id}/job/${job.id}/events`;

    const sentAt = new Map<string, number>();
    const latencies: number[] = [];
    const received = new Array<number>(subscribers).fill(0);
    const streams = Array.from({ length: subscribers }, async (_, index) => {
      const response = await fetch(streamUrl, { headers: auth, dispatcher } as RequestInit);
      for await (const message of readEventStream(response.body as AsyncIterable<Uint8Array>)) {
        if (message.event !== 'message') continue;
        const text = (JSON.parse(message.data) as { content: { text?: string } }).content.text ?? '';
        const start = sentAt.get(text);
        if (start === undefined) continue;
        latencies.push(performance.now() - start);
        received[index]++;
      }
    });
    const deadline = Date.now() + 60_000;
    while (context.jobEvents.subscriberCount < subscribers && Date.now() < deadline) await sleep(20);
    await sleep(200);

    for (let index = 0; index < eventCount; index++) {
      const text = `event ${index}`;
      sentAt.set(text, performance.now());
      await appendMessage(storage.db, job.id, 'assistant', { text });
      const expected = (index + 1) * subscribers;
      const wait = Date.now() + 10_000;
      while (latencies.length < expected && Date.now() < wait) await sleep(2);
    }

    const reference: number[] = [];
    for (let index = 0; index < 200; index++) {
      const start = performance.now();
      const response = await fetch(`${url}/healthz`, { dispatcher } as RequestInit);
      await response.arrayBuffer();
      reference.push(performance.now() - start);
    }
    reference.sort((a, b) => a - b);
    latencies.sort((a, b) => a - b);

    await fetch(`${url}/v2/agent/${project.id}/job/${job.id}/cancel`, { method: 'POST', headers: auth, dispatcher } as RequestInit);
    await Promise.all(streams);
    const missing = received.reduce((sum, count) => sum + (eventCount - count), 0);

    const p99 = percentile(latencies, 0.99);
    report.add({
      name: `event recorded → received, ${subscribers} SSE clients, p50`,
      value: percentile(latencies, 0.5),
      unit: 'ms',
      reference: { name: 'GET /healthz round trip p50', value: percentile(reference, 0.5) },
    });
    report.add({
      name: `event recorded → received, ${subscribers} SSE clients, p99`,
      value: p99,
      unit: 'ms',
      reference: { name: 'GET /healthz round trip p99', value: percentile(reference, 0.99) },
      target: { text: '≤ 200 ms', met: p99 <= 200 },
    });
    report.add({ name: `events missed (of ${eventCount} × ${subscribers})`, value: missing, unit: 'events', target: { text: '= 0', met: missing === 0 } });
  } finally {
    await app.close();
    await dispatcher.close();
    await storage.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export const eventsBench: BenchSuite = {
  name: 'events',
  description: 'job event stream: 1,000 SSE subscribers on one job over real HTTP (QUIRE_BENCH_SUBSCRIBERS, QUIRE_BENCH_EVENTS; DATABASE_URL for PostgreSQL)',
  run,
};
