import { execFile } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrganization } from '../../src/accounts/organizations.ts';
import { migrate } from '../../src/storage/migrate.ts';
import { openSqlite } from '../../src/storage/sqlite/connect.ts';
import { createTenant, type Tenant } from '../support/app.ts';
import { startServiceProcess, type ServiceProcess } from '../support/processes.ts';
import { postgresUrl } from '../support/storage.ts';

const run = promisify(execFile);

async function quire(env: Record<string, string>, ...args: string[]) {
  return run(process.execPath, ['src/cli/main.ts', ...args], { env: { ...process.env, LOG_LEVEL: 'silent', ...env } });
}

async function quireFails(env: Record<string, string>, ...args: string[]): Promise<string> {
  try {
    await quire(env, ...args);
  } catch (error) {
    const failure = error as { code: number; stderr: string };
    expect(failure.code).toBe(1);
    return failure.stderr;
  }
  throw new Error(`quire ${args.join(' ')} succeeded`);
}

/** Opens a SQLite file, runs `read` on it and closes it again (a connection left open would hold the database). */
async function inDatabase<T>(path: string, read: (storage: ReturnType<typeof openSqlite>) => Promise<T>): Promise<T> {
  const storage = openSqlite({ path });
  try {
    return await read(storage);
  } finally {
    await storage.close();
  }
}

const countEvents = (path: string) =>
  inDatabase(path, async (storage) =>
    Number(
      (
        await storage.db
          .selectFrom('analytics_events')
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    ),
  );
const organizationNames = (path: string) =>
  inDatabase(path, async (storage) => (await storage.db.selectFrom('organizations').select('name').orderBy('name').execute()).map((row) => row.name));

describe('quire backup and restore on SQLite', () => {
  const directory = mkdtempSync(join(tmpdir(), 'quire-backup-'));
  const env = { QUIRE_DATA_DIR: join(directory, 'data') };
  const database = join(directory, 'data', 'quire.db');
  const copy = join(directory, 'copy.db');
  let tenant: Tenant;
  let server: ServiceProcess | null = null;

  beforeAll(async () => {
    const storage = openSqlite({ path: database });
    await migrate(storage);
    tenant = await createTenant(storage);
    await storage.close();
    server = await startServiceProcess({ ...env, PORT: '0', SERVICE_WORKER: '0' });
  });
  afterAll(async () => {
    await server?.stop();
    rmSync(directory, { recursive: true, force: true });
  });

  it('copies the database consistently while the server writes to it', async () => {
    let writing = true;
    let acknowledged = 0;
    let batch = 0;
    const writer = (async () => {
      while (writing) {
        const events = Array.from({ length: 200 }, (_, index) => ({
          path: `/page-${batch}-${index}`,
          visitorId: `v${index}`,
          userAgent: 'Mozilla/5.0 Firefox/133.0',
        }));
        batch += 1;
        const response = await fetch(`${server!.url}/v1/analytics/${tenant.project.id}/events`, {
          method: 'POST',
          headers: { ...tenant.auth, 'content-type': 'application/json' },
          body: JSON.stringify({ events }),
        });
        expect(response.status).toBe(202);
        acknowledged += ((await response.json()) as { accepted: number }).accepted;
      }
    })();
    while (acknowledged < 2000) await new Promise((resolve) => setTimeout(resolve, 20));
    const before = acknowledged;
    const { stdout } = await quire(env, 'backup', copy, '--json');
    const during = acknowledged;
    writing = false;
    await writer;

    expect(JSON.parse(stdout)).toMatchObject({ database, file: copy, pages: expect.any(Number) });
    // Every event acknowledged before the backup began is in it; none acknowledged after it ended can be.
    const copied = await countEvents(copy);
    expect(copied).toBeGreaterThanOrEqual(before);
    expect(copied).toBeLessThanOrEqual(during);
    expect(copied % 200).toBe(0);
    await inDatabase(copy, async (storage) => {
      expect((await storage.db.selectFrom('projects').select('id').execute()).map((row) => row.id)).toEqual([tenant.project.id]);
    });
    expect(existsSync(`${copy}-wal`)).toBe(false);
  });

  it('refuses to overwrite a file without --force', async () => {
    const existing = join(directory, 'existing.db');
    writeFileSync(existing, 'keep me');
    expect(await quireFails(env, 'backup', existing)).toContain('--force');
    await quire(env, 'backup', existing, '--force');
    expect(await countEvents(existing)).toBeGreaterThan(0);
  });

  it('refuses to restore while the server runs, and restores once it stopped', async () => {
    const events = await countEvents(copy);
    // A change after the backup, which the restore takes back.
    await inDatabase(database, (storage) => createOrganization(storage.db, 'Made after the backup'));
    expect(await quireFails(env, 'restore', copy)).toMatch(/in use by a running Quire process.*stop it/);
    expect(await organizationNames(database)).toContain('Made after the backup');

    await server!.stop();
    server = null;
    // The backup is the service user's alone, as the database is; a backup copied with looser modes is restored as 0600.
    expect(statSync(copy).mode & 0o777).toBe(0o600);
    chmodSync(copy, 0o644);
    const { stdout } = await quire(env, 'restore', copy);
    expect(stdout).toContain('Restored');
    expect(statSync(database).mode & 0o777).toBe(0o600);
    expect(existsSync(`${database}-wal`)).toBe(false);
    expect(existsSync(`${database}-shm`)).toBe(false);
    expect(await organizationNames(database)).toEqual(['Acme']);
    expect(await countEvents(database)).toBe(events);

    server = await startServiceProcess({ ...env, PORT: '0', SERVICE_WORKER: '0' });
    const response = await fetch(`${server.url}/v2/agent/${tenant.project.id}/jobs`, { headers: tenant.auth });
    expect(response.status).toBe(200);
  });

  it('refuses a file that is not a Quire database and leaves the database as it was', async () => {
    await server?.stop();
    server = null;
    const bogus = join(directory, 'bogus.db');
    writeFileSync(bogus, 'not a database');
    expect(await quireFails(env, 'restore', bogus)).toContain('Could not restore');
    expect(await organizationNames(database)).toEqual(['Acme']);
  });
});

describe('quire backup and restore on PostgreSQL', () => {
  it('say to use pg_dump and pg_restore, and exit 1', async () => {
    const env = { DATABASE_URL: postgresUrl ?? 'postgres://quire@127.0.0.1:5432/quire' };
    const file = join(tmpdir(), `quire-never-written-${process.pid}.dump`);
    expect(await quireFails(env, 'backup', file)).toMatch(/SQLite database only.*pg_dump/);
    expect(await quireFails(env, 'restore', file)).toMatch(/SQLite database only.*pg_restore/);
    expect(existsSync(file)).toBe(false);
  });
});
