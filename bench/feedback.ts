import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import pg from 'pg';
import { feedbackShape, feedbackStart, generateInteractions, interactionEvent, type FeedbackShape } from './feedback-data.ts';
import { onEachDatabase, type BenchDatabase } from './databases.ts';
import { startQuireServer } from './processes.ts';
import type { BenchSuite, Report } from './report.ts';

const scale = Number(process.env.QUIRE_BENCH_SCALE ?? '1');
const dayMs = 86_400_000;
const batchSize = 1000;
const concurrency = 8;
const day = (at: number) => new Date(at).toISOString().slice(0, 10);

async function ingest(url: string, projectId: string, key: string, shape: FeedbackShape): Promise<number> {
  const events = generateInteractions(shape);
  const started = performance.now();
  const sender = async () => {
    for (;;) {
      const batch = [];
      for (let count = 0; count < batchSize; count++) {
        const next = events.next();
        if (next.done) break;
        batch.push(interactionEvent(next.value));
      }
      if (batch.length === 0) return;
      const response = await fetch(`${url}/v1/analytics/${projectId}/events`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ events: batch }),
      });
      const body = (await response.json()) as { accepted: number };
      if (response.status !== 202 || body.accepted !== batch.length)
        throw new Error(`ingestion answered ${response.status}: ${JSON.stringify(body).slice(0, 300)}`);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, sender));
  return (shape.events / (performance.now() - started)) * 1000;
}

/** The same raw events in DuckDB, one table per kind. */
async function duckdbEvents(shape: FeedbackShape): Promise<DuckDBConnection> {
  const connection = await (await DuckDBInstance.create(':memory:')).connect();
  await connection.run('create table feedback (time_ms bigint, path varchar, source varchar, helpful boolean, comment varchar, status varchar)');
  await connection.run('create table searches (time_ms bigint, query varchar, hits integer, clicked_path varchar)');
  const feedback = await connection.createAppender('feedback');
  const searches = await connection.createAppender('searches');
  for (const event of generateInteractions(shape)) {
    if (event.kind === 'feedback') {
      feedback.appendBigInt(BigInt(event.at));
      feedback.appendVarchar(event.path);
      feedback.appendVarchar(event.source);
      if (event.helpful === null) feedback.appendNull();
      else feedback.appendBoolean(event.helpful);
      feedback.appendVarchar(event.comment);
      feedback.appendVarchar('pending');
      feedback.endRow();
    } else {
      searches.appendBigInt(BigInt(event.at));
      searches.appendVarchar(event.query);
      searches.appendInteger(event.hits);
      if (event.clickedPath === null) searches.appendNull();
      else searches.appendVarchar(event.clickedPath);
      searches.endRow();
    }
  }
  feedback.closeSync();
  searches.closeSync();
  return connection;
}

const feedbackTables = [
  'analytics_feedback',
  'analytics_feedback_days',
  'analytics_searches',
  'analytics_search_days',
  'analytics_search_clicks',
  'analytics_search_totals',
];

/**
 * On PostgreSQL, waits until every feedback and search table large enough for Quire to analyze it
 * (5,000 rows, storage/statistics.ts) has been analyzed, and no ANALYZE of them runs, twice in a row
 * half a second apart (one just starting is seen). Right after a bulk load the planner has no
 * statistics yet and the exports would be timed on plans it guessed; Quire analyzes these tables in
 * the background once ingestion has written enough, as autovacuum would later, and this waits for
 * that the way bench/analytics.ts waits for folds.
 */
async function waitForStatistics(database: BenchDatabase): Promise<void> {
  if (database.name !== 'postgres') return;
  const client = new pg.Client({ connectionString: database.env.DATABASE_URL });
  await client.connect();
  try {
    const deadline = Date.now() + 120_000;
    for (let quiet = 0; quiet < 2;) {
      const { rows } = await client.query<{ relname: string }>(
        `select relname from pg_stat_user_tables
         where schemaname = current_schema() and relname = any($1) and n_live_tup >= 5000 and last_analyze is null and last_autoanalyze is null
         union all
         select relid::regclass::text from pg_stat_progress_analyze
         where relid in (select relid from pg_stat_user_tables where schemaname = current_schema() and relname = any($1))`,
        [feedbackTables],
      );
      quiet = rows.length === 0 ? quiet + 1 : 0;
      if (rows.length > 0 && Date.now() > deadline) {
        process.stdout.write(`  (still not analyzed after 2 minutes: ${rows.map((row) => row.relname).join(', ')}; timing anyway)\n`);
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  } finally {
    await client.end();
  }
}

async function timed<T>(work: () => Promise<T>): Promise<{ elapsed: number; value: T }> {
  const started = performance.now();
  const value = await work();
  return { elapsed: performance.now() - started, value };
}

async function figures(report: Report, database: BenchDatabase, shape: FeedbackShape, duckdb: DuckDBConnection): Promise<void> {
  const server = await startQuireServer('bench/analytics-server.ts', [], { ...database.env, LOG_LEVEL: 'silent' });
  try {
    const { url, projectId, key } = server.info as { url: string; projectId: string; key: string };
    const rate = await ingest(url, projectId, key, shape);
    report.add({ name: `feedback and search ingestion, ${database.name}, batches of 1,000`, value: rate, unit: 'events/s' });
    await waitForStatistics(database);
    const from = feedbackStart;
    const to = feedbackStart + shape.days * dayMs;
    const range = `dateFrom=${day(from)}&dateTo=${day(to)}`;
    const inRange = `time_ms >= ${from} and time_ms < ${to}`;
    const get = async (operation: string, query: string) => {
      const response = await fetch(`${url}/v1/analytics/${projectId}/${operation}?${range}&${query}`, { headers: { authorization: `Bearer ${key}` } });
      const body = (await response.json()) as Record<string, unknown>;
      if (response.status !== 200) throw new Error(`${operation} answered ${response.status}: ${JSON.stringify(body).slice(0, 300)}`);
      return body;
    };
    const reference = async (sql: string) =>
      (await duckdb.runAndReadAll(sql)).getRows().map((row) => row.map((value) => (typeof value === 'bigint' ? Number(value) : value)));
    const cases = [
      {
        name: 'feedback, newest 50',
        operation: 'feedback',
        query: 'limit=50',
        sql: `select time_ms, path from feedback where ${inRange} order by time_ms desc limit 50`,
        got: (body: Record<string, unknown>) => (body.feedback as { createdAt: string; path: string }[]).map((row) => [Date.parse(row.createdAt), row.path]),
      },
      {
        name: 'feedback, status=pending,in_progress, newest 50',
        operation: 'feedback',
        query: 'limit=50&status=pending,in_progress',
        sql: `select time_ms, path from feedback where ${inRange} and status in ('pending', 'in_progress') order by time_ms desc limit 50`,
        got: (body: Record<string, unknown>) => (body.feedback as { createdAt: string; path: string }[]).map((row) => [Date.parse(row.createdAt), row.path]),
      },
      {
        name: 'feedback by page, top 10',
        operation: 'feedback/by-page',
        query: 'limit=10',
        sql: `select path, count(*) filter (where helpful), count(*) filter (where not helpful), count(*) filter (where source = 'code_snippet'), count(*) total from feedback where ${inRange} group by path order by total desc, path limit 10`,
        got: (body: Record<string, unknown>) =>
          (body.feedback as { path: string; thumbsUp: number; thumbsDown: number; code: number; total: number }[]).map((row) => [
            row.path,
            row.thumbsUp,
            row.thumbsDown,
            row.code,
            row.total,
          ]),
      },
      {
        name: 'searches, top 50 queries',
        operation: 'searches',
        query: 'limit=50',
        sql: `select query, count(*) n, round(count(clicked_path) / count(*), 4) from searches where ${inRange} group by query order by n desc, query limit 50`,
        got: (body: Record<string, unknown>) =>
          (body.searches as { searchQuery: string; searches: number; ctr: number }[]).map((row) => [row.searchQuery, row.searches, row.ctr]),
      },
    ];
    for (const { name, operation, query, sql, got } of cases) {
      // One untimed call first: the process has just taken the ingestion, not yet run these statements.
      await get(operation, query);
      const answer = await timed(() => get(operation, query));
      const expected = await timed(() => reference(sql));
      // Rows with equal sort keys (same millisecond) may come in another order; the sets must match.
      const same = JSON.stringify(got(answer.value).map(String).sort()) === JSON.stringify(expected.value.map(String).sort());
      report.add({
        name: `${name}, ${database.name} (${same ? 'equal to' : 'DIFFERS from'} DuckDB)`,
        value: answer.elapsed,
        unit: 'ms',
        reference: { name: 'DuckDB over the raw events', value: expected.elapsed },
        target: { text: '≤ 100 ms', met: same && answer.elapsed <= 100 },
      });
    }
  } finally {
    await server.stop();
  }
}

async function run(report: Report): Promise<void> {
  const shape = feedbackShape(scale);
  process.stdout.write(
    `  dataset: ${shape.events.toLocaleString('en-US')} events (half feedback, half searches) over ${shape.days} days, ${shape.paths} pages, ${shape.queries.toLocaleString('en-US')} queries (QUIRE_BENCH_SCALE=${scale})\n`,
  );
  const duckdb = await duckdbEvents(shape);
  await onEachDatabase((database) => figures(report, database, shape, duckdb));
}

export const feedbackBench: BenchSuite = {
  name: 'feedback',
  description:
    'docs feedback and search exports, first page over 1,000,000 events in the range, beside DuckDB over the same raw events (QUIRE_BENCH_SCALE=0.01 for a hundredth)',
  run,
};
