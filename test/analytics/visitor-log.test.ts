import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectKey } from '../../src/analytics/ingest/dense-ids.ts';
import { mergeRecentVisitors, visitorIds } from '../../src/analytics/ingest/visitor-identity.ts';
import { VisitorLogCopy } from '../../src/analytics/ingest/visitor-log.ts';
import { createAnalyticsState } from '../../src/analytics/state.ts';
import type { Storage } from '../../src/storage/dialect.ts';
import { loadMigrations, migrate } from '../../src/storage/migrate.ts';
import { createTenant } from '../support/app.ts';
import { testDatabases } from '../support/storage.ts';

// The log of new visitors is SQLite's alone (PostgreSQL inserts into the visitor index directly).
const sqlite = testDatabases.find((database) => database.dialect === 'sqlite')!;

describe("SQLite's visitor log and a process's copy of it", () => {
  let storage: Storage;
  let key: number;

  beforeAll(async () => {
    storage = await sqlite.open();
    const tenant = await createTenant(storage);
    key = await projectKey(storage.db, createAnalyticsState(storage).ids, tenant.project.id);
  });
  afterAll(async () => {
    await storage.close();
  });

  /** Visitor ids of `hashes` as one write transaction of a process with the copy `log` gives them. */
  const idsOf = (log: VisitorLogCopy, hashes: string[]) => storage.db.transaction().execute((trx) => visitorIds(trx, storage.profile, log, key, hashes));
  const logged = async (hash: string) =>
    (await storage.db.selectFrom('analytics_visitor_log').select('visitor_id').where('visitor_hash', '=', hash).execute()).map((row) => Number(row.visitor_id));

  it('never keeps what a rolled-back transaction appended, while that transaction finds it', async () => {
    const log = new VisitorLogCopy();
    const failed = storage.db.transaction().execute(async (trx) => {
      const first = await visitorIds(trx, storage.profile, log, key, ['rolled-back']);
      expect(first.fresh).toBe(1);
      // Looked up again in the same transaction: found, not given a second id.
      const again = await visitorIds(trx, storage.profile, log, key, ['rolled-back', 'beside']);
      expect(again.ids.get('rolled-back')).toBe(first.ids.get('rolled-back'));
      expect(again.fresh).toBe(1);
      throw new Error('the commit failed');
    });
    await expect(failed).rejects.toThrow('the commit failed');
    expect(await logged('rolled-back')).toEqual([]);
    // Later transactions read the log again (another visitor makes this one append); the rolled-back visitor is new.
    await idsOf(log, ['other']);
    const later = await idsOf(log, ['rolled-back']);
    expect(later.fresh).toBe(1);
    expect(await logged('rolled-back')).toEqual([later.ids.get('rolled-back')]);
  });

  it("finds another process's visitors appended since it last looked, and visitors moved into the index", async () => {
    const [mine, theirs] = [new VisitorLogCopy(), new VisitorLogCopy()];
    const a = await idsOf(mine, ['a1', 'a2']);
    const b = await idsOf(theirs, ['b1', 'a1']);
    expect(b.ids.get('a1')).toBe(a.ids.get('a1'));
    expect(b.fresh).toBe(1);
    expect((await idsOf(mine, ['b1'])).ids.get('b1')).toBe(b.ids.get('b1'));
    // The other process moves the log into the index: this copy still holds those rows, and a dropped copy finds them there.
    expect(await mergeRecentVisitors(storage, 1, 1)).toBe(true);
    expect(await storage.db.selectFrom('analytics_visitor_log').select('seq').execute()).toEqual([]);
    const c = await idsOf(theirs, ['c1', 'a2']);
    expect(c.fresh).toBe(1);
    expect(c.ids.get('a2')).toBe(a.ids.get('a2'));
    const found = await idsOf(mine, ['a1', 'b1', 'c1']);
    expect(found.fresh).toBe(0);
    mine.forget();
    const again = await idsOf(mine, ['a1', 'b1', 'c1', 'a2']);
    expect(again.fresh).toBe(0);
    expect([...again.ids.values()].sort()).toEqual([a.ids.get('a1'), a.ids.get('a2'), b.ids.get('b1'), c.ids.get('c1')].sort());
  });

  it('keeps the visitors of the table it replaces, with their ids', async () => {
    const old = await sqlite.open({ migrate: false });
    try {
      // Every migration before the log's, then two visitors in the table it replaces.
      await sql`create table quire_migrations (version integer primary key, name text not null, applied_at bigint not null)`.execute(old.db);
      for (const migration of loadMigrations('sqlite').filter((each) => each.name !== 'analytics_visitor_log')) {
        for (const statement of migration.statements) await sql.raw(statement).execute(old.db);
        await old.db.insertInto('quire_migrations').values({ version: migration.version, name: migration.name, applied_at: 0 }).execute();
      }
      await sql`insert into analytics_recent_visitors (project_key, visitor_hash, visitor_id) values (1, 'z', 7), (1, 'y', 3)`.execute(old.db);
      expect((await migrate(old)).map((migration) => migration.name)).toEqual(['analytics_visitor_log']);
      const rows = await old.db.selectFrom('analytics_visitor_log').select(['seq', 'visitor_hash', 'visitor_id']).orderBy('seq').execute();
      expect(rows.map((row) => [row.visitor_hash, Number(row.visitor_id)])).toEqual([
        ['y', 3],
        ['z', 7],
      ]);
    } finally {
      await old.close();
    }
  });
});
