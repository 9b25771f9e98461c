import { afterEach, beforeEach, expect, it } from 'vitest';
import { sql } from 'kysely';
import { ingest } from '../support/ingest.ts';
import { createAnalyticsState } from '../../src/analytics/state.ts';
import type { Storage } from '../../src/storage/dialect.ts';
import { createTenant, type Tenant } from '../support/app.ts';
import { describeOnPostgres, testDatabases } from '../support/storage.ts';

const chrome = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';

/** Views of `count` visitors never seen before, starting at visitor `first`. */
function views(first: number, count: number): unknown[] {
  const timestamp = new Date(Date.now() - 60_000).toISOString();
  return Array.from({ length: count }, (_, index) => ({
    timestamp,
    path: `/guides/page-${index % 40}`,
    visitorId: `visitor-${first + index}`,
    userAgent: chrome,
  }));
}

async function visitorsAnalyzed(storage: Storage): Promise<boolean> {
  const { rows } = await sql<{ analyzed: boolean }>`
    select last_analyze is not null as analyzed from pg_stat_user_tables
    where schemaname = current_schema() and relname = 'analytics_visitors'`.execute(storage.db);
  return rows[0]?.analyzed ?? false;
}

// Visitors are looked up by hash for every view the process has not seen: with no statistics on a
// table that just grew, PostgreSQL scanned it whole for each lookup.
describeOnPostgres('planner statistics of the visitor index on PostgreSQL', () => {
  const database = testDatabases.find((candidate) => candidate.dialect === 'postgres')!;
  let storage: Storage;
  let tenant: Tenant;

  beforeEach(async () => {
    storage = await database.open();
    tenant = await createTenant(storage);
  });
  afterEach(async () => storage.close());

  it('analyzes the visitor table once thousands of new visitors have committed, not after a few', async () => {
    const state = createAnalyticsState(storage);
    expect(await ingest(state, tenant.project, views(0, 100))).toMatchObject({ accepted: 100, rejected: 0 });
    await state.statistics.settled();
    expect(await visitorsAnalyzed(storage)).toBe(false);

    expect(await ingest(state, tenant.project, views(100, 6000))).toMatchObject({ accepted: 6000, rejected: 0 });
    await state.statistics.settled();
    expect(await visitorsAnalyzed(storage)).toBe(true);
  });
});
