import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { sql, type Kysely } from 'kysely';
import pino from 'pino';
import { createKey } from '../src/accounts/keys.ts';
import { createOrganization } from '../src/accounts/organizations.ts';
import { createProject } from '../src/accounts/projects.ts';
import { keepGapEvidence } from '../src/analytics/feedback/gap-evidence.ts';
import { loadConfig } from '../src/config/config.ts';
import { buildApp } from '../src/server/app.ts';
import { createContext } from '../src/server/context.ts';
import { openStorage } from '../src/storage/open.ts';
import type { Database } from '../src/storage/schema.ts';
import { onEachDatabase, type BenchDatabase } from './databases.ts';
import { median, type BenchSuite, type Report } from './report.ts';

/**
 * The docs gaps benchmark: the gaps list over 90 days of a project with 1,000,000 searches, 100,000
 * assistant turns, 50,000 feedback items and 10,000,000 views (2% answered 404), beside DuckDB computing
 * the same evidence counts from the same raw rows. The rows are generated inside each database from one
 * formula per column (`rows` below), the same formulas DuckDB's copy is generated from, so a load takes
 * seconds rather than the hours the HTTP ingestion of 10 million views would on a small machine.
 */
const scale = Number(process.env.QUIRE_BENCH_SCALE ?? '1');
const dayMs = 86_400_000;
const days = 90;
const start = Date.UTC(2026, 0, 1);
const chrome = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';
const claudeBot = 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ClaudeBot/1.0; +claudebot@anthropic.com)';

interface Shape {
  views: number;
  searches: number;
  turns: number;
  feedback: number;
  queries: number;
}

const shapeOf = (factor: number): Shape => ({
  views: Math.round(10_000_000 * factor),
  searches: Math.round(1_000_000 * factor),
  turns: Math.round(100_000 * factor),
  feedback: Math.round(50_000 * factor),
  queries: Math.max(200, Math.round(20_000 * Math.sqrt(factor))),
});

/** Column formulas over the row number `i` (0-based), written in the SQL all three databases share. */
function rows(shape: Shape) {
  const at = (count: number) => `${start} + (i * ${days * dayMs}) / ${count}`;
  const threads = Math.max(1, Math.floor(shape.turns / 5));
  return {
    // 2% of views are 404s, on 500 missing paths; every seventh is ClaudeBot's.
    views: {
      at: at(shape.views),
      path_id: `case when i % 50 = 0 then 1 + (i / 50) % 500 else 501 + i % 1500 end`,
      agent_id: `case when i % 7 = 0 then 2 else 1 end`,
      visitor_id: `1 + (i * 7919) % 300000`,
      status: `case when i % 50 = 0 then 404 else 200 end`,
    },
    // One search in eight finds nothing; a third are plurals of another query (grouped together).
    searches: {
      at: at(shape.searches),
      query: `'query ' || ((i * 31) % ${shape.queries}) || case when i % 3 = 1 then 's' else '' end`,
      hits: `case when ((i * 31) % ${shape.queries}) % 8 = 7 then 0 else 1 + ((i * 31) % ${shape.queries}) % 20 end`,
      visitor_id: `1 + (i * 104729) % 300000`,
      visitor_class: `case when i % 10 = 0 then 1 else 0 end`,
    },
    // A third of the feedback is a thumbs down, half of those with a comment.
    feedback: {
      id: `'fbk_' || i`,
      at: at(shape.feedback),
      path: `'/docs/page-' || (i % 2000)`,
      helpful: `case i % 3 when 0 then 0 when 1 then 1 else null end`,
      comment: `case when i % 6 = 0 then 'step ' || (i % 500) || ' did not work' else '' end`,
      visitor_id: `1 + (i * 15485863) % 300000`,
    },
    // One turn in five is unanswered; five turns per thread.
    turns: {
      id: `'trn_' || i`,
      thread_id: `'thr_' || (i % ${threads})`,
      query: `'question ' || (i % 5000)`,
      resolution: `case when i % 5 = 0 then 'unanswered' else 'answered' end`,
      created_at: at(shape.turns),
    },
    threads,
  };
}

/** `insert into table (columns) select formulas from` the row numbers 0..count-1, in the database's own dialect. */
function generated(dialect: 'sqlite' | 'postgres' | 'duckdb', count: number): string {
  if (dialect === 'postgres') return `from generate_series(0::bigint, ${count - 1}) as numbers(i)`;
  if (dialect === 'duckdb') return `from (select range as i from range(${count}))`;
  return `from (with recursive numbers(i) as (select 0 union all select i + 1 from numbers where i < ${count - 1}) select i from numbers)`;
}

async function load(db: Kysely<Database>, dialect: 'sqlite' | 'postgres', projectId: string, shape: Shape): Promise<void> {
  const r = rows(shape);
  const run = (text: string) => sql.raw(text).execute(db);
  await run(`insert into analytics_projects (project_key, project_id, next_visitor, next_path, version) values (1, '${projectId}', 300001, 2001, 1)`);
  await run(
    `insert into analytics_paths (project_key, path, path_id) select 1, case when i < 500 then '/missing/page-' || (i + 1) else '/docs/page-' || (i + 1) end, i + 1 ${generated(dialect, 2000)}`,
  );
  await db
    .insertInto('analytics_agents')
    .values([
      { agent_id: 1, user_agent: chrome },
      { agent_id: 2, user_agent: claudeBot },
    ])
    .execute();
  const chunk = 1_000_000;
  for (let offset = 0; offset < shape.views; offset += chunk) {
    const count = Math.min(chunk, shape.views - offset);
    const v = r.views;
    const numbered = `(select i + ${offset} as i ${generated(dialect, count)}) as shifted`;
    await run(
      `insert into analytics_events (project_key, at, path_id, agent_id, visitor_id, markdown, status, verification) select 1, ${v.at}, ${v.path_id}, ${v.agent_id}, ${v.visitor_id}, 0, ${v.status}, 0 from ${numbered}`,
    );
  }
  const s = r.searches;
  await run(
    `insert into analytics_searches (project_key, at, query, hits, visitor_id, visitor_class) select 1, ${s.at}, ${s.query}, ${s.hits}, ${s.visitor_id}, ${s.visitor_class} ${generated(dialect, shape.searches)}`,
  );
  // The per-day counts ingestion keeps beside the rows it stores, which the list checks its kept evidence against.
  await run(
    `insert into analytics_search_totals (project_key, day, searches, clicked, no_hits) select 1, at / ${dayMs}, count(*), 0, sum(case when hits = 0 then 1 else 0 end) from analytics_searches group by at / ${dayMs}`,
  );
  await run(
    `insert into analytics_not_found_days (project_key, day, failures) select 1, at / ${dayMs}, count(*) from analytics_events where status = 404 group by at / ${dayMs}`,
  );
  const f = r.feedback;
  await run(
    `insert into analytics_feedback (id, project_key, at, path, source, status, helpful, comment, visitor_id, visitor_class) select ${f.id}, 1, ${f.at}, ${f.path}, 3, 0, ${f.helpful}, ${f.comment}, ${f.visitor_id}, 0 ${generated(dialect, shape.feedback)}`,
  );
  await run(
    `insert into assistant_threads (id, project_id, key_hash, fingerprint, created_at) select 'thr_' || i, '${projectId}', 'k', 'fp' || (i % 50000), ${start} ${generated(dialect, r.threads)}`,
  );
  const t = r.turns;
  await run(
    `insert into assistant_turns (id, thread_id, project_id, query, response, response_type, resolution, sources, caller, created_at) select ${t.id}, ${t.thread_id}, '${projectId}', ${t.query}, 'answer', 'answer', ${t.resolution}, '[]', 'web', ${t.created_at} ${generated(dialect, shape.turns)}`,
  );
  if (dialect === 'postgres') await run('analyze');
}

/** The raw rows in DuckDB, from the same formulas. */
async function duckdbCopy(shape: Shape): Promise<DuckDBConnection> {
  const connection = await (await DuckDBInstance.create(':memory:')).connect();
  const r = rows(shape);
  const v = r.views;
  await connection.run(
    `create table views as select ${v.at} as at, ${v.path_id} as path_id, ${v.agent_id} as agent_id, ${v.visitor_id} as visitor_id, ${v.status} as status ${generated('duckdb', shape.views)}`,
  );
  await connection.run(
    `create table paths as select i + 1 as path_id, case when i < 500 then '/missing/page-' || (i + 1) else '/docs/page-' || (i + 1) end as path ${generated('duckdb', 2000)}`,
  );
  const s = r.searches;
  await connection.run(
    `create table searches as select ${s.at} as at, ${s.query} as query, ${s.hits} as hits, ${s.visitor_id} as visitor_id ${generated('duckdb', shape.searches)}`,
  );
  const f = r.feedback;
  await connection.run(`create table feedback as select ${f.at} as at, ${f.helpful} as helpful ${generated('duckdb', shape.feedback)}`);
  const t = r.turns;
  await connection.run(`create table turns as select ${t.created_at} as at, ${t.resolution} as resolution ${generated('duckdb', shape.turns)}`);
  return connection;
}

async function timed<T>(work: () => Promise<T>): Promise<{ elapsed: number; value: T }> {
  const started = performance.now();
  const value = await work();
  return { elapsed: performance.now() - started, value };
}

interface GapJson {
  kind: string;
  paths: string[];
  evidence: { notFound: number };
  visitors: { human: number; ai: number; total: number };
}

async function figures(report: Report, database: BenchDatabase, shape: Shape, duckdb: DuckDBConnection): Promise<void> {
  const config = loadConfig({ ...process.env, ...database.env }, { logLevel: 'silent', analyticsRateLimit: 1_000_000 });
  const storage = await openStorage(config);
  const context = createContext(config, storage, { logger: pino({ level: 'silent' }) });
  const app = await buildApp(context);
  try {
    const organization = await createOrganization(storage.db, 'Bench');
    const project = await createProject(storage.db, organization.id, { name: 'Docs', repository: 'https://github.com/acme/docs', ref: 'main' });
    const { key } = await createKey(storage.db, organization.id, { scopes: ['read', 'write'] });
    const loaded = await timed(() => load(storage.db, database.name, project.id, shape));
    process.stdout.write(`  loaded ${database.name} in ${(loaded.elapsed / 1000).toFixed(1)} s\n`);
    const url = `/v1/analytics/${project.id}/gaps?dateFrom=2026-01-01&dateTo=2026-04-01&limit=20`;
    const list = async () => {
      const response = await app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${key}` } });
      if (response.statusCode !== 200) throw new Error(`gaps answered ${response.statusCode}: ${response.body.slice(0, 300)}`);
      return response.json() as { gaps: GapJson[] };
    };
    // Before the docs gaps loop has kept any day, a list computes every day from the raw rows (and writes nothing).
    const first = await timed(list);
    // The loop's work (once a minute): the days of evidence the list reads, computed and stored.
    const kept = await timed(() => keepGapEvidence(context.analytics, project.id, { from: start, to: start + days * dayMs }));
    // Once kept, the list is read seven times: the median wall time is the figure with the target, beside the
    // median CPU time of this process (the PostgreSQL server's own work is not in it), which other work on
    // a shared machine disturbs less.
    const reads: { elapsed: number; cpu: number; value: { gaps: GapJson[] } }[] = [];
    for (let round = 0; round < 7; round++) {
      const cpu = process.cpuUsage();
      const read = await timed(list);
      const used = process.cpuUsage(cpu);
      reads.push({ ...read, cpu: (used.user + used.system) / 1000 });
    }
    const again = { elapsed: median(reads.map((read) => read.elapsed)), value: reads[reads.length - 1]!.value };
    const cpu = median(reads.map((read) => read.cpu));
    // DuckDB computes the same evidence from the raw rows: 404s per path with their distinct visitors by
    // class (ClaudeBot is agent 2), searches without hits per query, unhelpful feedback, unanswered turns.
    const reference = await timed(async () => {
      const notFound = await duckdb.runAndReadAll(
        `select p.path, count(*), count(distinct visitor_id) filter (where agent_id = 1), count(distinct visitor_id) filter (where agent_id = 2), count(distinct visitor_id)
         from views v join paths p using (path_id) where status = 404 group by p.path order by 5 desc, 1`,
      );
      const totals = await duckdb.runAndReadAll(
        `select (select count(*) from searches where hits = 0), (select count(distinct query) from searches where hits = 0), (select count(*) from feedback where helpful = 0), (select count(*) from turns where resolution = 'unanswered')`,
      );
      return { notFound: notFound.getRows(), totals: totals.getRows()[0] };
    });
    const byPath = new Map(reference.value.notFound.map((row) => [String(row[0]), row.slice(1).map(Number)]));
    const broken = again.value.gaps.filter((gap) => gap.kind === 'broken');
    const same =
      broken.length > 0 &&
      broken.every((gap) => {
        const expected = byPath.get(gap.paths[0]!);
        return (
          expected !== undefined &&
          JSON.stringify([gap.evidence.notFound, gap.visitors.human, gap.visitors.ai, gap.visitors.total]) === JSON.stringify(expected)
        );
      });
    if (!same) {
      const gap = broken.find(
        (candidate) =>
          JSON.stringify([candidate.evidence.notFound, candidate.visitors.human, candidate.visitors.ai, candidate.visitors.total]) !==
          JSON.stringify(byPath.get(candidate.paths[0]!)),
      );
      process.stdout.write(
        `  first difference: ${JSON.stringify(gap ?? { broken: broken.length })} beside DuckDB's ${JSON.stringify(gap ? byPath.get(gap.paths[0]!) : null)}\n`,
      );
    }
    const target = { text: '≤ 200 ms', met: same && again.elapsed <= 200 };
    const reference2 = { name: 'DuckDB over the raw rows', value: reference.elapsed };
    report.add({
      name: `gaps list, first page, ${database.name}, no day kept yet (${same ? 'equal to' : 'DIFFERS from'} DuckDB)`,
      value: first.elapsed,
      unit: 'ms',
      reference: reference2,
    });
    report.add({ name: `keeping the ${days} days of evidence (the docs gaps loop's work), ${database.name}`, value: kept.elapsed, unit: 'ms' });
    report.add({
      name: `gaps list, first page, ${database.name}, median of 7 reads (${same ? 'equal to' : 'DIFFERS from'} DuckDB)`,
      value: again.elapsed,
      unit: 'ms',
      reference: reference2,
      target,
    });
    report.add({ name: `  CPU time of this process per read, median of 7, ${database.name}`, value: cpu, unit: 'ms' });
  } finally {
    await app.close();
    await storage.close();
  }
}

async function run(report: Report): Promise<void> {
  const shape = shapeOf(scale);
  process.stdout.write(
    `  dataset: ${shape.views.toLocaleString('en-US')} views (2% 404s), ${shape.searches.toLocaleString('en-US')} searches, ${shape.turns.toLocaleString('en-US')} assistant turns, ${shape.feedback.toLocaleString('en-US')} feedback items over ${days} days (QUIRE_BENCH_SCALE=${scale})\n`,
  );
  const duckdb = await duckdbCopy(shape);
  await onEachDatabase((database) => figures(report, database, shape, duckdb));
}

export const gapsBench: BenchSuite = {
  name: 'gaps',
  description:
    'docs gaps list over 90 days of searches, assistant turns, feedback and views (2% 404s), beside DuckDB computing the same evidence from the raw rows (QUIRE_BENCH_SCALE=0.01 for a hundredth)',
  run,
};
