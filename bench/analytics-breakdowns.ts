import type { DuckDBConnection } from '@duckdb/node-api';
import { benchStart, pathName, type DatasetShape } from './analytics-data.ts';
import type { Report } from './report.ts';

const dayMs = 86_400_000;
const day = (at: number) => new Date(at).toISOString().slice(0, 10);

interface Server {
  url: string;
  projectId: string;
  key: string;
}

async function timed(server: Server, operation: string, query: string): Promise<{ elapsed: number; body: Record<string, unknown> }> {
  const started = performance.now();
  const response = await fetch(`${server.url}/v1/analytics/${server.projectId}/${operation}?${query}`, { headers: { authorization: `Bearer ${server.key}` } });
  const body = (await response.json()) as Record<string, unknown>;
  if (response.status !== 200) throw new Error(`${operation} answered ${response.status}: ${JSON.stringify(body).slice(0, 300)}`);
  return { elapsed: performance.now() - started, body };
}

async function duckdb(connection: DuckDBConnection, sql: string): Promise<{ elapsed: number; rows: unknown[][] }> {
  const started = performance.now();
  const result = await connection.runAndReadAll(sql);
  return { elapsed: performance.now() - started, rows: result.getRows().map((row) => row.map((value) => (typeof value === 'bigint' ? Number(value) : value))) };
}

/**
 * Agents and referrers over 90 days (first page of 50) and the 90-day daily series, each beside
 * DuckDB's query over the same raw views, and whether the answers are equal.
 */
export async function breakdownFigures(report: Report, server: Server, shape: DatasetShape, connection: DuckDBConnection): Promise<void> {
  const to = benchStart + shape.days * dayMs;
  const from = to - 90 * dayMs;
  const range = `dateFrom=${day(from)}&dateTo=${day(to)}`;
  const inRange = `time_ms >= ${from} and time_ms < ${to}`;
  const breakdowns = [
    { operation: 'agents', list: 'agents', name: 'agent', where: 'ai = 1' },
    { operation: 'referrers', list: 'referrers', name: 'referrer', where: 'ai = 0 and referrer is not null' },
  ];
  for (const { operation, list, name, where } of breakdowns) {
    const answer = await timed(server, operation, `${range}&limit=50`);
    const next = await timed(server, operation, `${range}&limit=50&offset=50`);
    const totals = await duckdb(connection, `select count(distinct visitor), count(*) from views where ${where} and ${inRange}`);
    const rows = await duckdb(
      connection,
      `select ${name}, count(distinct visitor), count(*) as view_count from views where ${where} and ${inRange} group by ${name} order by view_count desc, ${name} asc limit 50`,
    );
    const got = answer.body[list] as Record<string, unknown>[];
    const same =
      JSON.stringify(answer.body.totals) === JSON.stringify({ visitors: totals.rows[0][0], views: totals.rows[0][1] }) &&
      JSON.stringify(got.map((row) => [row[name], row.visitors, row.views])) === JSON.stringify(rows.rows);
    report.add({
      name: `${operation} 90 days, first page (counts ${same ? 'equal' : 'DIFFER from'} DuckDB's)`,
      value: answer.elapsed,
      unit: 'ms',
      reference: { name: 'DuckDB COUNT(DISTINCT)', value: totals.elapsed + rows.elapsed },
      target: { text: '≤ 100 ms', met: same && answer.elapsed <= 100 },
    });
    report.add({ name: `${operation} 90 days, next page`, value: next.elapsed, unit: 'ms' });
  }
  for (const measure of ['visitors', 'views']) {
    const answer = await timed(server, 'series', `${range}&measure=${measure}`);
    const counted = measure === 'visitors' ? 'count(distinct visitor)' : 'count(*)';
    const expected = await duckdb(
      connection,
      `select time_ms // ${dayMs} as day, ${counted} filter (where ai = 0), ${counted} filter (where ai = 1), ${counted} from views where ${inRange} group by day order by day`,
    );
    const got = (answer.body.series as { human: number; ai: number; total: number }[]).map((entry) => [entry.human, entry.ai, entry.total]);
    const same = JSON.stringify(got) === JSON.stringify(expected.rows.map((row) => row.slice(1)));
    report.add({
      name: `series of ${measure}, 90 days (counts ${same ? 'equal' : 'DIFFER from'} DuckDB's)`,
      value: answer.elapsed,
      unit: 'ms',
      reference: { name: 'DuckDB COUNT(DISTINCT) per day', value: expected.elapsed },
      target: { text: '≤ 50 ms', met: same && answer.elapsed <= 50 },
    });
  }
}

const quoted = (value: string) => `'${value.replaceAll("'", "''")}'`;

/** Visits as the contract defines them (a visitor's views with no gap over 30 minutes), with each view's entry flag and its visit's source. */
async function duckdbVisits(connection: DuckDBConnection): Promise<void> {
  await connection.run(`create or replace table visited as
    with gaps as (
      select *, case when time_ms - lag(time_ms) over (partition by visitor order by time_ms, path) <= 1800000 then 0 else 1 end as entry from views
    ), numbered as (
      select *, sum(entry) over (partition by visitor order by time_ms, path rows unbounded preceding) as visit from gaps
    )
    select *, coalesce(first_value(referrer) over (partition by visitor, visit order by time_ms, path), 'Direct / None') as source from numbered`);
}

interface VisitorsBody {
  totals: { human: number; ai: number; total: number };
  visitors: { path: string; human: number; ai: number; total: number }[];
  previous?: { totals: { human: number; ai: number; total: number } };
}

/**
 * The dimensions of issue 31 beside DuckDB: each breakdown's first page, visitors filtered by one
 * country, one source and one path, and `compare=previous_period` beside the plain query.
 */
export async function dimensionFigures(report: Report, server: Server, shape: DatasetShape, connection: DuckDBConnection): Promise<void> {
  await duckdbVisits(connection);
  const to = benchStart + shape.days * dayMs;
  const from = to - 90 * dayMs;
  const range = `dateFrom=${day(from)}&dateTo=${day(to)}`;
  const inRange = `time_ms >= ${from} and time_ms < ${to}`;
  const properties = [
    { property: 'country', column: 'country', where: '' },
    { property: 'browser', column: 'browser', where: '' },
    { property: 'os', column: 'os', where: '' },
    { property: 'device', column: 'device', where: '' },
    { property: 'source', column: 'source', where: '' },
    { property: 'entry_page', column: 'path', where: 'and entry = 1' },
  ];
  const top: Record<string, string> = {};
  for (const { property, column, where } of properties) {
    const answer = await timed(server, 'breakdown', `${range}&property=${property}&limit=50`);
    const totals = await duckdb(connection, `select count(distinct visitor), count(*) from visited where ${inRange} ${where}`);
    const rows = await duckdb(
      connection,
      `select ${column}, count(distinct visitor) as visitor_count, count(*) from visited where ${inRange} ${where} and ${column} is not null group by ${column} order by visitor_count desc, ${column} asc limit 50`,
    );
    top[property] = String(rows.rows[0]?.[0] ?? '');
    const got = answer.body.results as { value: string; visitors: number; views: number }[];
    const same =
      JSON.stringify(answer.body.totals) === JSON.stringify({ visitors: totals.rows[0][0], views: totals.rows[0][1] }) &&
      JSON.stringify(got.map((row) => [row.value, row.visitors, row.views])) === JSON.stringify(rows.rows);
    report.add({
      name: `breakdown by ${property} 90 days, first page (${same ? 'equal to' : 'DIFFERS from'} DuckDB's)`,
      value: answer.elapsed,
      unit: 'ms',
      reference: { name: 'DuckDB COUNT(DISTINCT)', value: totals.elapsed + rows.elapsed },
      target: { text: '≤ 100 ms', met: same && answer.elapsed <= 100 },
    });
  }
  const filters = [
    { property: 'country', value: top.country, column: 'country', target: 150 },
    { property: 'source', value: top.source, column: 'source', target: 150 },
    { property: 'path', value: pathName(0), column: 'path', target: 30 },
  ];
  for (const { property, value, column, target } of filters) {
    const answer = await timed(server, 'visitors', `${range}&limit=50&filter=${encodeURIComponent(`${property}==${value}`)}`);
    const where = `${inRange} and ${column} = ${quoted(value)}`;
    const totals = await duckdb(
      connection,
      `select count(distinct visitor) filter (where ai = 0), count(distinct visitor) filter (where ai = 1), count(distinct visitor) from visited where ${where}`,
    );
    const rows = await duckdb(
      connection,
      `select path, count(distinct visitor) filter (where ai = 0), count(distinct visitor) filter (where ai = 1), count(distinct visitor) as total from visited where ${where} group by path order by total desc, path asc limit 50`,
    );
    const body = answer.body as unknown as VisitorsBody;
    const [human, ai, total] = totals.rows[0] as number[];
    const same =
      JSON.stringify(body.totals) === JSON.stringify({ human, ai, total }) &&
      JSON.stringify(body.visitors.map((row) => [row.path, row.human, row.ai, row.total])) === JSON.stringify(rows.rows);
    report.add({
      name: `visitors 90 days filtered by ${property} (${value}), first page (${same ? 'equal to' : 'DIFFERS from'} DuckDB's)`,
      value: answer.elapsed,
      unit: 'ms',
      reference: { name: 'DuckDB COUNT(DISTINCT)', value: totals.elapsed + rows.elapsed },
      target: { text: `≤ ${target} ms`, met: same && answer.elapsed <= target },
    });
  }
  const recent = `dateFrom=${day(to - 30 * dayMs)}&dateTo=${day(to)}`;
  const plain = await timed(server, 'visitors', `${recent}&limit=50`);
  const compared = await timed(server, 'visitors', `${recent}&limit=50&compare=previous_period`);
  const previous = await duckdb(
    connection,
    `select count(distinct visitor) filter (where ai = 0), count(distinct visitor) filter (where ai = 1), count(distinct visitor) from views where time_ms >= ${to - 60 * dayMs} and time_ms < ${to - 30 * dayMs}`,
  );
  const [human, ai, total] = previous.rows[0] as number[];
  const same = JSON.stringify((compared.body as unknown as VisitorsBody).previous?.totals) === JSON.stringify({ human, ai, total });
  report.add({
    name: `visitors 30 days with compare=previous_period (previous totals ${same ? 'equal to' : 'DIFFER from'} DuckDB's)`,
    value: compared.elapsed,
    unit: 'ms',
    reference: { name: 'the same query without compare', value: plain.elapsed },
    target: { text: '≤ 2× the plain query', met: same && compared.elapsed <= 2 * plain.elapsed },
  });
}
