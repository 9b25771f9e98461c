import { renameSync, rmSync } from 'node:fs';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.ts';
import { openStorage } from '../../src/storage/open.ts';
import { inSnapshot } from '../../src/storage/snapshot.ts';
import { testDatabases } from '../support/storage.ts';

const organization = (id: string) => ({ id, name: id, first_start: 0, server_credentials: 0, created_at: Date.now() });

describe('SQLite commits answered once the write-ahead log is on disk', () => {
  const sqlite = testDatabases.find((database) => database.dialect === 'sqlite')!;

  it('writes the log without a flush inside the commit, and answers concurrent writers and transactions, all stored', async () => {
    const storage = await sqlite.open();
    try {
      const { synchronous } = (await sql<{ synchronous: number }>`pragma synchronous`.execute(storage.db)).rows[0]!;
      expect(synchronous).toBe(1); // NORMAL: the flush happens after the commit, off the event loop
      await Promise.all([
        ...Array.from({ length: 20 }, (_, index) =>
          storage.db
            .insertInto('organizations')
            .values(organization(`org_plain_${index}`))
            .execute(),
        ),
        ...Array.from({ length: 20 }, (_, index) =>
          storage.db.transaction().execute(async (trx) => {
            await trx
              .insertInto('organizations')
              .values(organization(`org_tx_${index}`))
              .execute();
            await trx
              .updateTable('organizations')
              .set({ name: `renamed ${index}` })
              .where('id', '=', `org_tx_${index}`)
              .execute();
          }),
        ),
      ]);
      const elsewhere = await openStorage(loadConfig(storage.location.env), { migrate: false });
      try {
        const rows = await elsewhere.db.selectFrom('organizations').select(['id', 'name']).where('id', 'like', 'org_%_%').execute();
        expect(rows.filter((row) => row.id.startsWith('org_plain_'))).toHaveLength(20);
        expect(rows.filter((row) => row.id.startsWith('org_tx_') && row.name.startsWith('renamed '))).toHaveLength(20);
      } finally {
        await elsewhere.close();
      }
    } finally {
      await storage.close();
    }
  });

  it('fails a write whose log cannot be flushed instead of acknowledging it, and a failed transaction does not wait', async () => {
    const storage = await sqlite.open();
    const dataDir = storage.location.env.QUIRE_DATA_DIR!;
    const moved = `${dataDir}-moved`;
    try {
      await storage.db.insertInto('organizations').values(organization('org_before')).execute();
      // The files stay open by this process, but neither the log nor the database can be found to flush.
      renameSync(dataDir, moved);
      await expect(storage.db.insertInto('organizations').values(organization('org_lost')).execute()).rejects.toThrow(/ENOENT/);
      await expect(
        storage.db.transaction().execute(async (trx) => {
          await trx.selectFrom('organizations').selectAll().execute();
          throw new Error('changed my mind');
        }),
      ).rejects.toThrow('changed my mind');
      renameSync(moved, dataDir);
      // Writes go on once the log can be reached again.
      await storage.db.insertInto('organizations').values(organization('org_after')).execute();
    } finally {
      await storage.close();
      rmSync(moved, { recursive: true, force: true });
    }
  });

  it('does not flush for a transaction that only read, and still does for one that wrote', async () => {
    const storage = await sqlite.open();
    const dataDir = storage.location.env.QUIRE_DATA_DIR!;
    const moved = `${dataDir}-moved`;
    try {
      await storage.db.insertInto('organizations').values(organization('org_read')).execute();
      renameSync(dataDir, moved);
      // A snapshot read (BEGIN, SELECTs, COMMIT) wrote nothing to the log: it answers without a flush, which would fail here.
      const read = await inSnapshot(storage, (trx) => trx.selectFrom('organizations').select('id').where('id', '=', 'org_read').execute());
      expect(read).toEqual([{ id: 'org_read' }]);
      await expect(
        storage.db.transaction().execute(async (trx) => {
          await trx.selectFrom('organizations').selectAll().execute();
          await trx.insertInto('organizations').values(organization('org_unflushed')).execute();
        }),
      ).rejects.toThrow(/ENOENT/);
      // A rolled-back write is no commit either.
      await expect(
        storage.db.transaction().execute(async (trx) => {
          await trx.insertInto('organizations').values(organization('org_rolled_back')).execute();
          throw new Error('changed my mind');
        }),
      ).rejects.toThrow('changed my mind');
      await expect(inSnapshot(storage, (trx) => trx.selectFrom('organizations').select('id').execute())).resolves.toBeDefined();
      renameSync(moved, dataDir);
    } finally {
      await storage.close();
      rmSync(moved, { recursive: true, force: true });
    }
  });

  it('defers the flush of a deferred writer to its `durable`, which fails when the log cannot be flushed', async () => {
    const storage = await sqlite.open();
    const dataDir = storage.location.env.QUIRE_DATA_DIR!;
    const moved = `${dataDir}-moved`;
    try {
      const { value, durable } = await storage.deferDurability(async () => {
        await storage.db.insertInto('organizations').values(organization('org_deferred')).execute();
        return 'written';
      });
      expect(value).toBe('written');
      await durable;
      renameSync(dataDir, moved);
      const second = await storage.deferDurability(() =>
        storage.db.transaction().execute((trx) => trx.insertInto('organizations').values(organization('org_unflushed')).execute()),
      );
      // Committed (the transaction answered) but not on disk: only `durable` says so.
      await expect(second.durable).rejects.toThrow(/ENOENT/);
      renameSync(moved, dataDir);
    } finally {
      await storage.close();
      rmSync(moved, { recursive: true, force: true });
    }
  });
});
