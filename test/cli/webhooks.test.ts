import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJob } from '../../src/jobs/service.ts';
import type { Storage } from '../../src/storage/dialect.ts';
import { createTenant, testContext, type Tenant } from '../support/app.ts';
import { testDatabases, type TestLocation } from '../support/storage.ts';

const run = promisify(execFile);

describe.each(testDatabases)('quire webhooks on $dialect', (database) => {
  let storage: Storage & { location: TestLocation };
  let tenant: Tenant;
  let other: Tenant;

  beforeAll(async () => {
    storage = await database.open();
    tenant = await createTenant(storage);
    other = await createTenant(storage);
  });
  afterAll(async () => {
    await storage.close();
  });

  async function quire(...args: string[]): Promise<string> {
    const env = { ...process.env, ...storage.location.env, LOG_LEVEL: 'silent', QUIRE_WEBHOOKS_ALLOW_PRIVATE: 'true' };
    return (await run(process.execPath, ['src/cli/main.ts', 'webhooks', ...args], { env })).stdout;
  }

  async function quireFails(...args: string[]): Promise<string> {
    try {
      await quire(...args);
    } catch (error) {
      expect((error as { code: number }).code).toBe(1);
      return (error as { stderr: string }).stderr;
    }
    throw new Error(`quire webhooks ${args.join(' ')} succeeded`);
  }

  it('creates, lists, shows deliveries, redelivers, rotates and deletes', async () => {
    const project = ['--project', tenant.project.id];
    const created = JSON.parse(await quire('create', ...project, '--url', 'http://127.0.0.1:9/cli', '--events', 'job.created,job.failed', '--json')) as {
      id: string;
      secret: string;
    };
    expect(created.secret).toMatch(/^whsec_/);
    expect(() => new Webhook(created.secret)).not.toThrow();
    const listed = await quire('list', ...project);
    expect(listed).toContain(created.id);
    expect(listed).not.toContain(created.secret);
    await createJob(testContext(storage), tenant.project, { prompt: 'From the CLI test' });
    const [delivery] = JSON.parse(await quire('deliveries', created.id, ...project, '--json')) as { id: string; type: string; status: string }[];
    expect(delivery).toMatchObject({ type: 'job.created', status: 'pending' });
    expect(await quire('redeliver', created.id, delivery.id, ...project)).toContain(`Delivery ${delivery.id} is due again`);
    const rotated = await quire('rotate-secret', created.id, ...project);
    expect(rotated).toMatch(/New signing secret .*whsec_/);
    expect(rotated).not.toContain(created.secret);
    // Another project's id does not reach the endpoint.
    expect(await quireFails('delete', created.id, '--project', other.project.id)).toMatch(/was not found/);
    expect(await quire('delete', created.id, ...project)).toContain(`Deleted webhook ${created.id}`);
    expect(await quire('list', ...project)).toContain('(none)');
  });

  it('says what to fix for a bad URL, an unknown event type and an unknown project', async () => {
    expect(await quireFails('create', '--project', tenant.project.id, '--url', 'ftp://example.com/')).toMatch(/http or https/);
    expect(await quireFails('create', '--project', tenant.project.id, '--url', 'http://127.0.0.1/', '--events', 'job.nope')).toMatch(/"job.nope" is not one/);
    expect(await quireFails('list', '--project', 'prj_missing')).toMatch(/No project has the id prj_missing/);
  });
});
