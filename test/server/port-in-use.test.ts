import { spawn } from 'node:child_process';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Storage } from '../../src/storage/dialect.ts';
import { createTenant, testApp, testContext } from '../support/app.ts';
import { testDatabases, type TestLocation } from '../support/storage.ts';

/** Runs test/support/service-process.ts until it exits by itself; a process still running after `timeoutMs` is killed and reported. */
function runToExit(env: Record<string, string>, timeoutMs: number): Promise<{ code: number | null; stderr: string; exitedByItself: boolean }> {
  const child = spawn(process.execPath, ['test/support/service-process.ts'], { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, stderr, exitedByItself: signal === null });
    });
  });
}

describe.each(testDatabases)('a second Quire whose port is taken, on $dialect', (database) => {
  let storage: Storage & { location: TestLocation };
  let other: Server;
  let port: number;

  beforeAll(async () => {
    storage = await database.open();
    other = createServer();
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    port = (other.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await new Promise((resolve) => other?.close(resolve));
    await storage?.close();
  });

  it('exits non-zero saying the port is in use, without claiming a job of the shared database', async () => {
    const tenant = await createTenant(storage);
    const app = await testApp(testContext(storage));
    const created = await app.inject({
      method: 'POST',
      url: `/v2/agent/${tenant.project.id}/job`,
      headers: tenant.auth,
      payload: { prompt: 'Waits for a worker' },
    });
    await app.close();
    expect(created.statusCode).toBe(201);
    const jobId: string = created.json().id;

    const result = await runToExit({ ...storage.location.env, PORT: String(port), HOST: '127.0.0.1', QUIRE_WORKER_POLL_MS: '20' }, 20_000);
    expect(result.exitedByItself, `the process kept running; it printed: ${result.stderr}`).toBe(true);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain(`port ${port} is in use: stop the other Quire or set PORT`);

    const job = await storage.db.selectFrom('jobs').select('status').where('id', '=', jobId).executeTakeFirstOrThrow();
    expect(job.status).toBe('active');
    const queued = await storage.db.selectFrom('job_queue').select(['attempts', 'locked_by']).where('job_id', '=', jobId).executeTakeFirstOrThrow();
    expect(queued).toEqual({ attempts: 0, locked_by: null });
    const ran = await storage.db.selectFrom('job_messages').select('seq').where('job_id', '=', jobId).where('role', '=', 'assistant').execute();
    expect(ran).toEqual([]);
  }, 30_000);
});
