import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Storage } from '../../src/storage/dialect.ts';
import { createTenant, type Tenant } from '../support/app.ts';
import { testDatabases, type TestLocation } from '../support/storage.ts';

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

async function startServer(location: TestLocation): Promise<{ child: ChildProcess; url: string }> {
  const port = await freePort();
  const child = spawn('node_modules/.bin/node', ['src/cli/main.ts', 'serve', '--no-worker'], {
    env: { ...process.env, ...location.env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'silent' },
    stdio: 'ignore',
  });
  const url = `http://127.0.0.1:${port}`;
  for (let attempt = 0; attempt < 200; attempt++) {
    if (child.exitCode !== null) throw new Error(`quire serve exited with ${child.exitCode}`);
    try {
      if ((await fetch(`${url}/healthz`)).ok) return { child, url };
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('quire serve did not start within 20 seconds');
}

describe.each(testDatabases)('durability on $dialect', (database) => {
  let storage: Storage & { location: TestLocation };
  let tenant: Tenant;
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    storage = await database.open();
    tenant = await createTenant(storage);
  });
  afterAll(async () => {
    for (const child of children) child.kill('SIGKILL');
    await storage.close();
  });

  it('counts every event acknowledged before the server was killed with SIGKILL', async () => {
    const first = await startServer(storage.location);
    children.push(first.child);
    const day = Date.UTC(2026, 5, 1);
    let acknowledged = 0;
    let sent = 0;
    const post = async (batch: number) => {
      const events = Array.from({ length: 200 }, (_, index) => ({
        timestamp: day + batch * 1000 + index,
        path: `/p${index % 7}`,
        visitorId: `b${batch}-${index}`,
        userAgent: 'Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0',
      }));
      sent += events.length;
      const response = await fetch(`${first.url}/v1/analytics/${tenant.project.id}/events`, {
        method: 'POST',
        headers: { ...tenant.auth, 'content-type': 'application/json' },
        body: JSON.stringify({ events }),
      });
      if (response.status === 202) acknowledged += ((await response.json()) as { accepted: number }).accepted;
    };
    const writers = Array.from({ length: 4 }, async (_, writer) => {
      for (let batch = writer; ; batch += 4) await post(batch);
    });
    await new Promise((resolve) => setTimeout(resolve, 1500));
    first.child.kill('SIGKILL');
    await Promise.allSettled(writers);
    expect(acknowledged).toBeGreaterThan(0);

    const second = await startServer(storage.location);
    children.push(second.child);
    const query = new URLSearchParams({ dateFrom: '2026-06-01', dateTo: '2026-06-02' });
    const response = await fetch(`${second.url}/v1/analytics/${tenant.project.id}/views?${query}`, { headers: tenant.auth });
    const { totals } = (await response.json()) as { totals: { human: number } };
    expect(totals.human).toBeGreaterThanOrEqual(acknowledged);
    expect(totals.human).toBeLessThanOrEqual(sent);
    const visitors = await fetch(`${second.url}/v1/analytics/${tenant.project.id}/visitors?${query}`, { headers: tenant.auth });
    expect(((await visitors.json()) as { totals: { human: number } }).totals.human).toBe(totals.human);
    second.child.kill('SIGTERM');
  });
});
