import { afterEach, beforeEach, expect, it } from 'vitest';
import { sql, type KyselyPlugin, type RawNode } from 'kysely';
import pino from 'pino';
import { prepareRequest, storePrepared } from '../../src/analytics/http/events-request.ts';
import { createAnalyticsState } from '../../src/analytics/state.ts';
import type { Storage } from '../../src/storage/dialect.ts';
import { createTenant, type Tenant } from '../support/app.ts';
import { describeOnPostgres, testDatabases } from '../support/storage.ts';

const now = Date.UTC(2026, 2, 2, 12);

/** `count` feedback items and as many searches, one a second before `now`. */
function interactions(count: number): unknown[] {
  const events: unknown[] = [];
  for (let index = 0; index < count; index++) {
    const timestamp = new Date(now - (index + 1) * 1000).toISOString();
    events.push({ kind: 'feedback', timestamp, path: `/guides/page-${index % 40}`, source: 'contextual', helpful: index % 3 === 0, comment: `note ${index}` });
    events.push({ kind: 'search', timestamp, query: `query ${index % 700}`, hits: index % 8 });
  }
  return events;
}

/** Tables of the test's schema that a statement has analyzed (autovacuum's analyses are not counted). */
async function analyzed(storage: Storage): Promise<string[]> {
  const { rows } = await sql<{ relname: string }>`
    select relname from pg_stat_user_tables where schemaname = current_schema() and last_analyze is not null order by relname`.execute(storage.db);
  return rows.map((row) => row.relname);
}

/** A logger that keeps its lines. */
function recordingLogger(lines: string[]) {
  return pino({ level: 'warn' }, { write: (line: string) => lines.push(line) });
}

/** Makes every ANALYZE statement fail before it reaches the server. */
const refuseAnalyze: KyselyPlugin = {
  transformQuery(args) {
    if (args.node.kind === 'RawNode' && (args.node as RawNode).sqlFragments[0].trimStart().startsWith('analyze')) throw new Error('ANALYZE refused');
    return args.node;
  },
  transformResult: async (args) => args.result,
};

describeOnPostgres('planner statistics of feedback and searches on PostgreSQL', () => {
  const database = testDatabases.find((candidate) => candidate.dialect === 'postgres')!;
  let storage: Storage;
  let tenant: Tenant;

  beforeEach(async () => {
    storage = await database.open();
    tenant = await createTenant(storage);
  });
  afterEach(async () => storage.close());

  it('analyzes the tables after a large write, and not after a tiny one', async () => {
    const warnings: string[] = [];
    const state = createAnalyticsState(storage, undefined, recordingLogger(warnings));
    expect(await storePrepared(state, tenant.project, prepareRequest(interactions(5), now))).toMatchObject({ accepted: 10, rejected: 0 });
    await state.statistics.settled();
    expect(await analyzed(storage)).toEqual([]);

    expect(await storePrepared(state, tenant.project, prepareRequest(interactions(6000), now))).toMatchObject({ accepted: 12_000, rejected: 0 });
    await state.statistics.settled();
    // Feedback items and searches passed 5,000 rows; the per-day aggregates stay small here.
    expect(await analyzed(storage)).toEqual(expect.arrayContaining(['analytics_feedback', 'analytics_searches']));
    expect(await analyzed(storage)).not.toContain('analytics_search_totals');
    expect(warnings).toEqual([]);
  });

  it('stores the events when ANALYZE fails, and logs the failure', async () => {
    const warnings: string[] = [];
    const failing = { ...storage, db: storage.db.withPlugin(refuseAnalyze) };
    const state = createAnalyticsState(failing, undefined, recordingLogger(warnings));
    expect(await storePrepared(state, tenant.project, prepareRequest(interactions(6000), now))).toMatchObject({ accepted: 12_000, rejected: 0 });
    await state.statistics.settled();
    expect(warnings).toHaveLength(1);
    expect(JSON.parse(warnings[0])).toMatchObject({
      msg: expect.stringMatching(/^analyzing tables after bulk writes failed/),
      err: { message: 'ANALYZE refused' },
    });
    expect(await analyzed(storage)).toEqual([]);
    const stored = await storage.db
      .selectFrom('analytics_feedback')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .executeTakeFirstOrThrow();
    expect(Number(stored.count)).toBe(6000);
  });
});
