import type { DuckDBConnection } from '@duckdb/node-api';
import { benchStart, type DatasetShape } from './analytics-data.ts';
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
