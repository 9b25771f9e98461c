import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/server/config.ts';
import type { Storage } from '../../src/storage/dialect.ts';
import { openStorage } from '../../src/storage/open.ts';
import { createTenant, testApp, testContext, type Tenant } from '../support/app.ts';
import { testDatabases, type TestLocation } from '../support/storage.ts';

/**
 * Another process's commit is seen from the next event-loop iteration on (storage/sqlite/connect.ts):
 * a request that comes after it arrives through I/O, so in a later iteration; so does this wait.
 */
const nextIteration = () => new Promise((resolve) => setImmediate(resolve));

describe.each(testDatabases)('polling a job on $dialect', (database) => {
  let storage: Storage & { location: TestLocation };
  let app: FastifyInstance;
  let tenant: Tenant;
  let other: Tenant;

  beforeAll(async () => {
    storage = await database.open();
    app = await testApp(testContext(storage));
    tenant = await createTenant(storage);
    other = await createTenant(storage);
  });
  afterAll(async () => {
    await app.close();
    await storage.close();
  });

  const get = (t: Tenant, id: string) => app.inject({ method: 'GET', url: `/v2/agent/${t.project.id}/job/${id}`, headers: t.auth });
  const createJob = async () => (await app.inject({ method: 'POST', url: `/v2/agent/${tenant.project.id}/job`, headers: tenant.auth, payload: { prompt: 'Poll me' } })).json().id as string;

  it('sees every change this process makes at once', async () => {
    const id = await createJob();
    expect((await get(tenant, id)).json().status).toBe('active');
    expect((await get(tenant, id)).json().status).toBe('active');
    await storage.db.updateTable('jobs').set({ status: 'completed', pr_link: 'https://github.com/acme/docs/pull/7' }).where('id', '=', id).execute();
    expect((await get(tenant, id)).json()).toMatchObject({ status: 'completed', prLink: 'https://github.com/acme/docs/pull/7' });
    const archived = await app.inject({ method: 'POST', url: `/v2/agent/${tenant.project.id}/job/${id}/archive`, headers: tenant.auth });
    expect(archived.statusCode).toBe(200);
    expect((await get(tenant, id)).json()).toEqual(archived.json());
  });

  it('sees a change committed by another process (another connection) at once', async () => {
    const id = await createJob();
    expect((await get(tenant, id)).json().status).toBe('active');
    const elsewhere = await openStorage(loadConfig(storage.location.env), { migrate: false });
    try {
      await elsewhere.db.updateTable('jobs').set({ status: 'failed', error: 'Interrupted three times.' }).where('id', '=', id).execute();
    } finally {
      await elsewhere.close();
    }
    await nextIteration();
    expect((await get(tenant, id)).json()).toMatchObject({ status: 'failed', error: 'Interrupted three times.' });
  });

  it('never answers another organization from a job read before', async () => {
    const id = await createJob();
    expect((await get(tenant, id)).statusCode).toBe(200);
    const foreign = await app.inject({ method: 'GET', url: `/v2/agent/${other.project.id}/job/${id}`, headers: other.auth });
    expect(foreign.statusCode).toBe(404);
    const crossed = await app.inject({ method: 'GET', url: `/v2/agent/${tenant.project.id}/job/${id}`, headers: other.auth });
    expect(crossed.statusCode).toBe(404);
  });
});

describe('the SQLite change clock', () => {
  const sqlite = testDatabases.find((database) => database.dialect === 'sqlite')!;

  it('moves with this connection’s writes and other connections’ commits, not with reads', async () => {
    const storage = await sqlite.open();
    try {
      const clock = storage.changeClock!;
      const start = clock();
      await storage.db.selectFrom('organizations').selectAll().execute();
      expect(clock()).toBe(start);
      await storage.db.insertInto('organizations').values({ id: 'org_clock', name: 'Clock', created_at: Date.now() }).execute();
      const afterWrite = clock();
      expect(afterWrite).toBeGreaterThan(start);
      const elsewhere = await openStorage(loadConfig(storage.location.env), { migrate: false });
      await elsewhere.db.updateTable('organizations').set({ name: 'Clock 2' }).where('id', '=', 'org_clock').execute();
      await elsewhere.close();
      await nextIteration();
      expect(clock()).toBeGreaterThan(afterWrite);
    } finally {
      await storage.close();
    }
  });
});
