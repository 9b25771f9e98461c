import { execFile } from 'node:child_process';
import { createConnection, createServer, type AddressInfo, type Server } from 'node:net';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { JobFailure } from '../../src/jobs/runner.ts';
import { Worker } from '../../src/jobs/worker.ts';
import type { Storage } from '../../src/storage/dialect.ts';
import { createTenant, testApp, testContext, type Tenant } from '../support/app.ts';
import { testDatabases } from '../support/storage.ts';

const run = promisify(execFile);

/**
 * A TCP proxy in front of the server that cuts the first event-stream connection right after it has
 * passed on the entry "step 1": `wait` must resume after it without printing anything twice.
 */
async function droppingProxy(target: number): Promise<{ port: number; server: Server; dropped: () => boolean }> {
  let dropped = false;
  const server = createServer((client) => {
    const upstream = createConnection(target, '127.0.0.1');
    let isStream = false;
    client.on('data', (chunk: Buffer) => {
      if (chunk.toString('latin1').startsWith('GET ') && chunk.includes('/events')) isStream = true;
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      client.write(chunk);
      if (isStream && !dropped && chunk.includes('step 1')) {
        dropped = true;
        setTimeout(() => {
          client.destroy();
          upstream.destroy();
        }, 20);
      }
    });
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, server, dropped: () => dropped };
}

// The CLI is an HTTP client: one database is enough here (the API's storage is tested on both).
describe('quire jobs, against a listening server', () => {
  let storage: Storage;
  let app: FastifyInstance;
  let tenant: Tenant;
  let worker: Worker;
  let url: string;

  beforeAll(async () => {
    storage = await testDatabases[0].open();
    const context = testContext(storage, { config: { eventsPollMs: 50 } });
    app = await testApp(context);
    url = await app.listen({ port: 0, host: '127.0.0.1' });
    tenant = await createTenant(storage);
    worker = new Worker({
      storage,
      logger: pino({ level: 'silent' }),
      concurrency: 2,
      leaseMs: 30_000,
      pollMs: 20,
      runner: {
        async run(job) {
          // Starting the CLI takes longer than this job: the failing one waits for its watcher.
          while (job.prompt.includes('break') && context.jobEvents.subscriberCount === 0) await new Promise((resolve) => setTimeout(resolve, 20));
          await job.record('assistant', { text: 'step 1' });
          await new Promise((resolve) => setTimeout(resolve, 300));
          await job.record('tool', { tool: 'read_file', input: { path: 'docs/intro.md' }, result: '# Intro' });
          await job.record('assistant', { text: 'step 2' });
          if (job.prompt.includes('break')) throw new JobFailure('The docs build broke.');
          return { prLink: 'https://github.com/acme/docs/pull/3' };
        },
      },
    });
    context.events.on('job-enqueued', worker.notify);
    worker.start();
  });
  afterAll(async () => {
    await worker.stop(1000);
    await app.close();
    await storage.close();
  });

  const quire = (env: Record<string, string>, ...args: string[]) =>
    run(process.execPath, ['src/cli/main.ts', ...args], { env: { ...process.env, QUIRE_URL: url, QUIRE_API_KEY: tenant.key, ...env } });
  async function quireExit(env: Record<string, string>, ...args: string[]) {
    try {
      const { stdout, stderr } = await quire(env, ...args);
      return { code: 0, stdout, stderr };
    } catch (error) {
      const failure = error as { code: number; stdout: string; stderr: string };
      return { code: failure.code, stdout: failure.stdout, stderr: failure.stderr };
    }
  }

  it('creates, gets and lists jobs, in JSON and for people', async () => {
    const { stdout } = await quire({}, 'jobs', 'create', '--project', tenant.project.id, '--prompt', 'Fix the intro', '--draft', '--json');
    const job = JSON.parse(stdout) as { id: string; status: string };
    expect(job.status).toBe('active');
    const got = await quire({}, 'jobs', 'get', job.id, '--project', tenant.project.id);
    expect(got.stdout).toContain(job.id);
    const listed = JSON.parse((await quire({}, 'jobs', 'list', '--project', tenant.project.id, '--json')).stdout) as { jobs: { id: string }[] };
    expect(listed.jobs.map((entry) => entry.id)).toContain(job.id);
    expect((await quire({}, 'jobs', 'list', '--project', tenant.project.id)).stdout).toMatch(/^id\s+status\s+model/);
  });

  it('waits on a job, printing its live transcript, and exits 0 when it completed', async () => {
    const result = await quireExit({}, 'jobs', 'create', '--project', tenant.project.id, '--prompt', 'Work', '--wait');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('> Work');
    expect(result.stdout).toContain('· read_file {"path":"docs/intro.md"} → # Intro');
    expect(result.stdout).toContain('status: completed');
    expect(result.stdout).toContain('pull request: https://github.com/acme/docs/pull/3');
  });

  it('resumes with Last-Event-ID when the connection drops, and exits non-zero when the job failed', async () => {
    const proxy = await droppingProxy(Number(new URL(url).port));
    try {
      const created = JSON.parse((await quire({}, 'jobs', 'create', '--project', tenant.project.id, '--prompt', 'break it', '--json')).stdout) as {
        id: string;
      };
      const result = await quireExit({ QUIRE_URL: `http://127.0.0.1:${proxy.port}` }, 'jobs', 'wait', created.id, '--project', tenant.project.id);
      expect(proxy.dropped()).toBe(true);
      expect(result.stderr).toMatch(/connection lost .*; resuming after event \d+/);
      expect(result.stdout.split('\n').filter((line) => line === 'step 1')).toHaveLength(1);
      expect(result.stdout.split('\n').filter((line) => line === 'step 2')).toHaveLength(1);
      expect(result.stdout).toContain('error: The docs build broke.');
      expect(result.code).toBe(2);
    } finally {
      proxy.server.close();
    }
  });

  it('without QUIRE_URL, reaches the server at its HOST and PORT on this machine, whatever QUIRE_PUBLIC_URL says', async () => {
    const server = { QUIRE_URL: '', QUIRE_PUBLIC_URL: '', HOST: '127.0.0.1' };
    const list = (env: Record<string, string>) => quireExit({ ...server, ...env }, 'jobs', 'list', '--project', tenant.project.id, '--json');
    const [byPort, behindPublicName, byQuireUrl, elsewhere] = await Promise.all([
      list({ PORT: new URL(url).port }),
      // A public name the machine itself may not reach (a container, a reverse proxy elsewhere) is not used.
      list({ PORT: new URL(url).port, QUIRE_PUBLIC_URL: 'https://quire.example.invalid' }),
      // QUIRE_URL still wins, for a server other than the one these settings start.
      list({ PORT: '1', QUIRE_URL: url }),
      list({ PORT: '1' }),
    ]);
    for (const result of [byPort, behindPublicName, byQuireUrl])
      expect(result, result.stderr).toMatchObject({ code: 0, stdout: expect.stringContaining('"jobs"') });
    expect(elsewhere.code).toBe(1);
    expect(elsewhere.stderr).toContain('Cannot reach Quire at http://127.0.0.1:1 (');
  });

  it('cancels a job, and says what to do when the key is missing or the job unknown', async () => {
    const created = JSON.parse((await quire({}, 'jobs', 'create', '--project', tenant.project.id, '--prompt', 'Cancel me', '--json')).stdout) as { id: string };
    const cancelled = await quireExit({}, 'jobs', 'cancel', created.id, '--project', tenant.project.id, '--json');
    // The run may have finished first: then the cancel is refused with 409.
    if (cancelled.code === 0) expect(JSON.parse(cancelled.stdout)).toMatchObject({ status: 'failed', error: expect.stringContaining('cancelled') });
    else expect(cancelled.stderr).toContain('409 conflict');
    const missing = await quireExit({}, 'jobs', 'get', 'job_01ARZ3NDEKTSV4RRFFQ69G5FAV', '--project', tenant.project.id);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('404 not_found');
    const noKey = await quireExit({ QUIRE_API_KEY: '' }, 'jobs', 'list', '--project', tenant.project.id);
    expect(noKey.code).toBe(1);
    expect(noKey.stderr).toContain('QUIRE_API_KEY');
  });
});
