import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Storage } from '../../src/storage/dialect.ts';
import { describeOnPostgres, postgresUrl, testDatabases } from '../support/storage.ts';

const postgres = testDatabases.find((database) => database.dialect === 'postgres');

async function terminate(pid: number): Promise<void> {
  const admin = new pg.Client({ connectionString: postgresUrl });
  await admin.connect();
  await admin.query('select pg_terminate_backend($1)', [pid]);
  await admin.end();
}

describeOnPostgres('PostgreSQL connections that die', () => {
  let storage: Storage;

  beforeAll(async () => {
    storage = await postgres!.open();
  });
  afterAll(async () => {
    await storage.close();
  });

  it('fails the transaction whose connection was cut between statements, and keeps serving', async () => {
    const outcome = storage.db.transaction().execute(async (trx) => {
      const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(trx);
      await terminate(rows[0].pid);
      // The connection dies while checked out and idle: its 'error' event must not end the process.
      await sleep(200);
      await sql`select 1`.execute(trx);
    });
    await expect(outcome).rejects.toThrow();
    await storage.ping();
  });

  it('listens again after its listening connection is cut', async () => {
    const channel = `quire_test_${process.pid}`;
    let notified = 0;
    const stop = await storage.listen(channel, () => notified++);
    try {
      const admin = new pg.Client({ connectionString: postgresUrl });
      await admin.connect();
      const { rows } = await admin.query<{ pid: number }>("select pid from pg_stat_activity where query like 'listen %' and query like $1", [`%${channel}%`]);
      expect(rows.length).toBe(1);
      await admin.query('select pg_terminate_backend($1)', [rows[0].pid]);
      // The listener reconnects (and reports a wake-up so nothing enqueued meanwhile is missed).
      const before = notified;
      for (let i = 0; i < 50 && notified === before; i++) await sleep(100);
      expect(notified).toBeGreaterThan(before);
      const afterReconnect = notified;
      await admin.query('select pg_notify($1, $2)', [channel, '']);
      for (let i = 0; i < 50 && notified === afterReconnect; i++) await sleep(100);
      expect(notified).toBeGreaterThan(afterReconnect);
      await admin.end();
    } finally {
      await stop();
    }
  });
});
