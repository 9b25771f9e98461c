import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ingest } from '../support/ingest.ts';
import { backgroundLoops, type Role } from '../../src/server/background.ts';
import { startService } from '../../src/server/service.ts';
import type { Storage } from '../../src/storage/dialect.ts';
import { createTenant, scriptedAgent, testApp, testConfig, testContext } from '../support/app.ts';
import { testDatabases } from '../support/storage.ts';

const loopsOf = (role: Role) => backgroundLoops.filter((loop) => loop.roles.includes(role)).map((loop) => loop.name);
const view = { path: '/guides/setup', timestamp: '2026-11-21T09:00:00Z', userAgent: 'Mozilla/5.0 (X11; Linux x86_64) Firefox/125.0', visitorId: 'v1' };

describe('the background loops list', () => {
  it('gives the analytics loops, the rate-limit clean-up and docs build requests to every process, admin MCP sessions to API processes, the docs gaps, job loops and the docs builder to workers', () => {
    expect(loopsOf('api')).toEqual(['analytics fold', 'feedback purge', 'rate-limit clean-up', 'admin MCP sessions', 'docs build requests']);
    expect(loopsOf('worker')).toEqual([
      'analytics fold',
      'feedback purge',
      'rate-limit clean-up',
      'workspace sweeper',
      'docs gaps',
      'webhook deliveries',
      'job worker',
      'docs build requests',
      'docs builder',
    ]);
  });
});

describe.each(testDatabases)('background loops started by the service on $dialect', (database) => {
  let storage: Storage;
  let dataDir: string;
  beforeAll(async () => {
    storage = await database.open();
    dataDir = mkdtempSync(join(tmpdir(), 'quire-background-'));
  });
  afterAll(async () => {
    await storage.close();
    rmSync(dataDir, { recursive: true, force: true });
  });
  const pending = async () =>
    Number(
      (
        await storage.db
          .selectFrom('analytics_pending')
          .select((eb) => eb.fn.countAll().as('count'))
          .executeTakeFirstOrThrow()
      ).count,
    );

  it('folds in a `quire worker` process, which also runs the job worker and deliveries', async () => {
    const tenant = await createTenant(storage);
    const service = await startService({
      config: testConfig({ dataDir }),
      api: false,
      worker: true,
      storage,
      agent: scriptedAgent(),
      logger: pino({ level: 'silent' }),
    });
    try {
      expect(service.worker).not.toBeNull();
      expect(service.deliveries).not.toBeNull();
      expect((await ingest(service.context.analytics, tenant.project, [view])).accepted).toBe(1);
      await expect.poll(pending, { timeout: 5_000 }).toBe(0);
    } finally {
      await service.stop();
    }
  });

  it('deletes expired rate-limit rows in a `quire serve --no-worker` process', async () => {
    const expired = Date.now() - 2 * 86_400_000;
    await storage.db.insertInto('rate_limit_hits').values({ bucket: 'background:address:2001:db8::', at: expired }).execute();
    await storage.db.insertInto('rate_limit_buckets').values({ bucket: 'background:address:2001:db8::' }).execute();
    const left = async () =>
      (await storage.db.selectFrom('rate_limit_hits').select('at').where('bucket', '=', 'background:address:2001:db8::').execute()).length +
      (await storage.db.selectFrom('rate_limit_buckets').select('bucket').where('bucket', '=', 'background:address:2001:db8::').execute()).length;
    expect(await left()).toBe(2);
    const service = await startService({
      config: testConfig({ dataDir }),
      api: true,
      worker: false,
      storage,
      agent: scriptedAgent(),
      logger: pino({ level: 'silent' }),
    });
    try {
      await expect.poll(left, { timeout: 5_000 }).toBe(0);
    } finally {
      await service.stop();
    }
  });

  it('starts no loop when only the routes are registered: the app folds nothing by itself', async () => {
    const tenant = await createTenant(storage);
    const context = testContext(storage, { config: { dataDir } });
    const app = await testApp(context);
    try {
      expect((await ingest(context.analytics, tenant.project, [view])).accepted).toBe(1);
      await new Promise((resolve) => setTimeout(resolve, 750));
      expect(await pending()).toBe(1);
    } finally {
      await app.close();
    }
  });
});
