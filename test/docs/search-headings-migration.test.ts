import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Storage } from '../../src/storage/dialect.ts';
import { loadMigrations } from '../../src/storage/migrate.ts';
import { createTenant } from '../support/app.ts';
import { describeOnPostgres, testDatabases } from '../support/storage.ts';
import { fillIndex } from './serving/support.ts';

describeOnPostgres('the 042 migration on postgres', () => {
  let storage: Storage;

  beforeAll(async () => {
    storage = await testDatabases.find((database) => database.dialect === 'postgres')!.open();
  });
  afterAll(async () => {
    await storage.close();
  });

  const headings = async () =>
    (await sql<{ id: string; headings: string }>`select section_id as id, headings::text as headings from docs_search order by section_id`.execute(storage.db))
      .rows;

  it('fills the headings vector of existing sections exactly as a build writes it', async () => {
    const tenant = await createTenant(storage);
    await fillIndex(storage, tenant.project.id);
    const written = await headings();
    expect(written.length).toBeGreaterThan(3);
    expect(written.every((row) => row.headings.includes(`'p`))).toBe(true);
    // The index as it was before the migration: no title or heading words anywhere in the column.
    await sql`update docs_search set headings = ''::tsvector`.execute(storage.db);
    expect((await headings()).every((row) => row.headings === '')).toBe(true);
    const fill = loadMigrations('postgres')
      .find((migration) => migration.version === 42)!
      .statements.find((statement) => statement.startsWith('update docs_search'))!;
    await sql.raw(fill).execute(storage.db);
    expect(await headings()).toEqual(written);
  });
});
