import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.ts';
import type { Storage } from '../../src/storage/dialect.ts';
import { loadMigrations } from '../../src/storage/migrate.ts';
import { openStorage } from '../../src/storage/open.ts';
import { inSnapshot } from '../../src/storage/snapshot.ts';
import { storageProcess } from '../support/processes.ts';
import { nextIteration, testDatabases, type TestLocation } from '../support/storage.ts';

/**
 * What every storage backend promises the rest of Quire, checked the same way on each: several
 * processes share one database, so each test opens more than one connection to it.
 */
describe.each(testDatabases)('storage conformance on $dialect', (database) => {
  const opened: Storage[] = [];
  afterEach(async () => {
    // The first one opened owns the database (removes the file or schema), so it closes last.
    for (const storage of opened.reverse()) await storage.close();
    opened.length = 0;
  });

  async function fresh(options: { migrate?: boolean } = {}): Promise<Storage & { location: TestLocation }> {
    const storage = await database.open(options);
    opened.push(storage);
    return storage;
  }
  /** Another connection (as another process would have) to the same database. */
  async function another(location: TestLocation): Promise<Storage> {
    const storage = await openStorage(loadConfig(location.env), { migrate: false });
    opened.push(storage);
    return storage;
  }

  /** Organizations as `db` sees them. */
  const count = async (db: Storage['db']) =>
    Number(
      (
        await db
          .selectFrom('organizations')
          .select((eb) => eb.fn.countAll().as('count'))
          .executeTakeFirstOrThrow()
      ).count,
    );

  it('applies each migration once when several processes start together', async () => {
    const shared = await fresh({ migrate: false });
    const applied = await Promise.all([1, 2, 3].map(() => storageProcess('migrate', shared.location.env).result));
    const versions = loadMigrations(shared.profile.name).map((migration) => migration.version);
    expect((applied as number[][]).flat().sort((a, b) => a - b)).toEqual(versions);
    const rows = await shared.db.selectFrom('quire_migrations').select('version').orderBy('version').execute();
    expect(rows.map((row) => Number(row.version))).toEqual(versions);
  });

  it('holds a rate limit exactly when transactions of several processes race for it', async () => {
    const shared = await fresh();
    const env = { ...shared.location.env, LIMIT: '10', ATTEMPTS: '12' };
    const allowed = await Promise.all([1, 2, 3].map(() => storageProcess('rate-limit', env).result));
    expect((allowed as number[]).reduce((sum, count) => sum + count, 0)).toBe(10);
  });

  it('reads one snapshot in a snapshot transaction while another process writes', async () => {
    const shared = await fresh();
    let writer: ReturnType<typeof storageProcess> | undefined;
    const seen = await inSnapshot(shared, async (trx) => {
      const before = await count(trx);
      writer = storageProcess('insert-organization', shared.location.env);
      // PostgreSQL commits the other write meanwhile; SQLite makes it wait for this transaction. Either way the snapshot holds.
      for (let waited = 0; waited < 3000 && !writer.exited(); waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
      return [before, await count(trx)];
    });
    await writer!.result;
    expect(seen[1]).toBe(seen[0]);
    expect(await count(shared.db)).toBe(seen[0] + 1);
  });

  it('reads one snapshot without a write lock in a read snapshot, and refuses a write there', async () => {
    const shared = await fresh();
    let writer: ReturnType<typeof storageProcess> | undefined;
    const seen = await shared.readSnapshot(async (trx) => {
      const before = await count(trx);
      // The other process commits while the snapshot is open: a read snapshot makes no writer wait.
      writer = storageProcess('insert-organization', shared.location.env);
      await writer.result;
      return [before, await count(trx)];
    });
    expect(seen[1]).toBe(seen[0]);
    expect(await count(shared.db)).toBe(seen[0] + 1);
    const organization = (id: string) => ({ id, name: 'Written here', created_at: Date.now(), first_start: 0, server_credentials: 0 });
    const write = shared.readSnapshot((trx) => trx.insertInto('organizations').values(organization('org_snapshot')).execute());
    await expect(write).rejects.toThrow(/read.?only|readonly/i);
    expect(await count(shared.db)).toBe(seen[0] + 1);
    // The connection writes again once the snapshot is over.
    await shared.db.insertInto('organizations').values(organization('org_after')).execute();
    expect(await count(shared.db)).toBe(seen[0] + 2);
  });

  it('wakes listeners of other connections after commit only, where the backend notifies across processes', async () => {
    const first = await fresh();
    const listener = await another(first.location);
    let woken = 0;
    const stop = await listener.listen('conformance', () => woken++);
    // A listener wakes once when it (re)connects, for work enqueued while it was not listening.
    const settled = woken;
    const pause = () => new Promise((resolve) => setTimeout(resolve, 300));
    await first.db
      .transaction()
      .execute(async (trx) => {
        await first.notify(trx, 'conformance');
        throw new Error('roll back');
      })
      .catch(() => undefined);
    await pause();
    expect(woken).toBe(settled);
    await first.db.transaction().execute((trx) => first.notify(trx, 'conformance'));
    for (let attempt = 0; attempt < 50 && woken === settled && database.dialect === 'postgres'; attempt++)
      await new Promise((resolve) => setTimeout(resolve, 50));
    await stop();
    // SQLite serves one process, whose workers are woken in memory; PostgreSQL carries NOTIFY to every connection.
    expect(woken - settled).toBe(database.dialect === 'postgres' ? 1 : 0);
  });

  it('carries payloads to listeners, one notification each, where the backend notifies across processes', async () => {
    const first = await fresh();
    const listener = await another(first.location);
    const payloads: string[] = [];
    const stop = await listener.listen('conformance_payloads', (payload) => payloads.push(payload));
    await first.notify(first.db, 'conformance_payloads', ['job_1']);
    await first.notify(first.db, 'conformance_payloads', ['job_2', 'job_3', "it's"]);
    for (let attempt = 0; attempt < 50 && payloads.length < 5 && database.dialect === 'postgres'; attempt++)
      await new Promise((resolve) => setTimeout(resolve, 50));
    await stop();
    // The first, empty payload is the wake-up on connecting.
    expect(payloads).toEqual(database.dialect === 'postgres' ? ['', 'job_1', 'job_2', 'job_3', "it's"] : []);
  });

  it('moves the change clock on its own writes and on other connections’ commits, where it has one', async () => {
    const first = await fresh();
    if (first.changeClock === null) {
      expect(database.dialect).toBe('postgres');
      return;
    }
    const clock = first.changeClock;
    const start = clock();
    await first.db
      .insertInto('organizations')
      .values({ id: 'org_own', name: 'Own write', created_at: Date.now(), first_start: 0, server_credentials: 0 })
      .execute();
    const afterOwn = clock();
    expect(afterOwn).not.toBe(start);
    const other = await another(first.location);
    await other.db
      .insertInto('organizations')
      .values({ id: 'org_other', name: 'Other write', created_at: Date.now(), first_start: 0, server_credentials: 0 })
      .execute();
    await nextIteration();
    expect(clock()).not.toBe(afterOwn);
  });
});
