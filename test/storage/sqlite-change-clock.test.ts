import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.ts';
import { openStorage } from '../../src/storage/open.ts';
import { nextIteration, testDatabases } from '../support/storage.ts';

describe('the SQLite change clock', () => {
  const sqlite = testDatabases.find((database) => database.dialect === 'sqlite')!;

  it('moves with this connection’s writes and other connections’ commits, not with reads', async () => {
    const storage = await sqlite.open();
    try {
      const clock = storage.changeClock!;
      const start = clock();
      await storage.db.selectFrom('organizations').selectAll().execute();
      expect(clock()).toBe(start);
      await storage.db
        .insertInto('organizations')
        .values({ id: 'org_clock', name: 'Clock', first_start: 0, server_credentials: 0, created_at: Date.now() })
        .execute();
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
