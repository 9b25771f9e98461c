/**
 * Docs served to agents and readers, on a running Quire (API and builder in one process) over HTTP: builds of a
 * real docs repository and of 10,000 pages made from it, search quality beside MiniSearch and Orama on the same
 * pages and queries, search latency with 16 clients, the MCP search tool and llms.txt.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { baselines } from './docs-baselines.ts';
import {
  fetchBytes,
  fetchText,
  filesByRoute,
  mcpClient,
  measureConcurrent,
  quantiles,
  refreshDocs,
  searchPages,
  updateProject,
  waitForBuild,
  type DocsServer,
} from './docs-client.ts';
import { qualityCorpus, type CorpusQuery } from './docs-corpus.ts';
import { evaluateSearch, type SearchQuality } from './docs-quality.ts';
import { changeOnePage, cloneSeconds, multipliedRepository, temporalRepository, type BenchRepository } from './docs-repositories.ts';
import { benchDatabaseNames, freshDatabase, type BenchDatabase } from './databases.ts';
import { processesCpuSeconds, startQuireServer } from './processes.ts';
import type { BenchSuite, Report } from './report.ts';

const largePages = Number(process.env.QUIRE_BENCH_DOCS_PAGES ?? '10000');
const seconds = Number(process.env.QUIRE_BENCH_SECONDS ?? '5');
const clients = 16;

interface Repositories {
  folder: string;
  temporal: BenchRepository;
  large: BenchRepository;
  cloned: { temporal: number; large: number };
}

async function buildFrom(server: DocsServer, repository: BenchRepository, settings: Record<string, unknown> = {}) {
  const started = performance.now();
  await updateProject(server, { repository: repository.path, ref: 'main', ...settings });
  const commit = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: repository.work, encoding: 'utf8' }).trim();
  return waitForBuild(server, commit, started);
}

function qualityFigures(report: Report, prefix: string, quire: SearchQuality, references: SearchQuality[]): void {
  for (const measure of ['recallAt5', 'mrr'] as const) {
    const best = Math.max(...references.map((reference) => reference[measure]));
    const strongest = references.find((reference) => reference[measure] === best)!;
    report.add({
      name: `${prefix} search ${measure === 'recallAt5' ? 'recall@5' : 'MRR@10'} (${quire.queries} queries)`,
      value: Number(quire[measure].toFixed(3)),
      unit: '',
      reference: { name: strongest.name, value: Number(best.toFixed(3)) },
      target: { text: `≥ ${references.map((reference) => `${reference.name} ${reference[measure].toFixed(3)}`).join(' and ')}`, met: quire[measure] >= best },
    });
  }
}

/** The keyword queries with their relevant pages among those indexed; a query left with none is dropped. */
function indexedQueries(indexed: Set<string>): CorpusQuery[] {
  return qualityCorpus()
    .queries.map((query) => ({ ...query, relevant: query.relevant.filter((path) => indexed.has(path)) }))
    .filter((query) => query.relevant.length > 0);
}

/**
 * The references on exactly the pages the index holds: the site's navigation may leave some files out, and a
 * search cannot find a page it was never given.
 */
async function referencesFor(report: Report, indexed: Set<string>): Promise<SearchQuality[]> {
  const pages = qualityCorpus().pages.filter((page) => indexed.has(page.path));
  const references: SearchQuality[] = [];
  for (const baseline of await baselines(pages)) {
    const quality = await evaluateSearch(baseline.name, baseline.search, indexedQueries(indexed));
    references.push(quality);
    report.add({
      name: `${baseline.name} recall@5 / MRR@10 (BM25 defaults, the ${pages.length} indexed pages)`,
      value: Number(quality.recallAt5.toFixed(3)),
      unit: `/ ${quality.mrr.toFixed(3)}`,
    });
  }
  return references;
}

async function runOn(report: Report, database: BenchDatabase, repositories: Repositories, known: { references?: SearchQuality[] }): Promise<void> {
  const prefix = `${database.name}:`;
  const quire = await startQuireServer('bench/docs-server.ts', [], { ...database.env, QUIRE_BENCH_REPOSITORIES: repositories.folder });
  const server = quire.info as DocsServer;
  try {
    const temporal = await buildFrom(server, repositories.temporal, { docsPublic: true });
    report.add({
      name: `${prefix} full build of the Temporal docs (${temporal.pages} pages)`,
      value: Number(temporal.seconds.toFixed(2)),
      unit: 's',
      reference: { name: 'git clone of the same repository', value: Number(repositories.cloned.temporal.toFixed(2)) },
    });
    report.add({ name: `${prefix} full build of the Temporal docs, pages per second`, value: Math.round(temporal.pages / temporal.seconds), unit: 'pages/s' });
    // The discovery search names pages by route; the queries' relevant pages are files of the repository.
    const files = await filesByRoute(server);
    const references = (known.references ??= await referencesFor(report, new Set(files.values())));
    const search = async (query: string) => (await searchPages(server, query, 50)).map((route) => files.get(route) ?? route);
    qualityFigures(report, prefix, await evaluateSearch(`Quire (${database.name})`, search, indexedQueries(new Set(files.values()))), references);

    const large = await buildFrom(server, repositories.large);
    report.add({
      name: `${prefix} full build of ${large.pages.toLocaleString('en-US')} pages`,
      value: Number(large.seconds.toFixed(2)),
      unit: 's',
      reference: { name: 'git clone of the same repository', value: Number(repositories.cloned.large.toFixed(2)) },
    });
    report.add({
      name: `${prefix} full build of ${large.pages.toLocaleString('en-US')} pages, pages per second`,
      value: Math.round(large.pages / large.seconds),
      unit: 'pages/s',
    });
    const changed = changeOnePage(repositories.large, qualityCorpus().pages[0].path, 1);
    const started = performance.now();
    await refreshDocs(server);
    const incremental = await waitForBuild(server, changed, started);
    report.add({
      name: `${prefix} incremental build after one page changed`,
      value: Number(incremental.seconds.toFixed(3)),
      unit: 's',
      reference: { name: 'full build', value: Number(large.seconds.toFixed(2)) },
      target: { text: '≤ 1 s', met: incremental.seconds <= 1 },
    });

    const queries = qualityCorpus().queries.map((entry) => entry.query);
    // The server's CPU over the 16-client phase (PostgreSQL's own processes too), per search answered.
    const serverCpu = () => quire.cpuSeconds() + (database.name === 'postgres' ? processesCpuSeconds('postgres') : 0);
    const cpuBefore = serverCpu();
    const searchLatencies = await measureConcurrent(clients, seconds, (round) => searchPages(server, queries[round % queries.length]));
    const cpuPerSearch = ((serverCpu() - cpuBefore) * 1000) / searchLatencies.length;
    const searched = quantiles(searchLatencies);
    const health = quantiles(await measureConcurrent(clients, seconds, () => fetch(`${server.url}/healthz`).then((response) => response.text())));
    // The same load asking for 50 sections each, as the quality figures do (and as the speed figures did before).
    const fifty = quantiles(await measureConcurrent(clients, seconds, (round) => searchPages(server, queries[round % queries.length], 50)));
    report.add({
      name: `${prefix} search p50 (default page size, 10), ${clients} clients, ${large.pages.toLocaleString('en-US')} pages`,
      value: Number(searched.p50.toFixed(2)),
      unit: 'ms',
      reference: { name: `/healthz p50, ${clients} clients`, value: Number(health.p50.toFixed(2)) },
      target: { text: '≤ 10 ms', met: searched.p50 <= 10 },
    });
    report.add({
      name: `${prefix} search p99 (default page size, 10), ${clients} clients, ${large.pages.toLocaleString('en-US')} pages`,
      value: Number(searched.p99.toFixed(2)),
      unit: 'ms',
      reference: { name: `/healthz p99, ${clients} clients`, value: Number(health.p99.toFixed(2)) },
      target: { text: '≤ 50 ms', met: searched.p99 <= 50 },
    });
    // With every client waiting for its answer before asking again, the median answer waits behind about one
    // search per client, on the machine's cores: p50 ≥ clients × CPU per search ÷ cores, before the clients' own CPU.
    report.add({
      name: `${prefix} server CPU per search in that phase (${searchLatencies.length} searches${database.name === 'postgres' ? ', PostgreSQL processes included' : ''})`,
      value: Number(cpuPerSearch.toFixed(2)),
      unit: 'ms',
      reference: {
        name: `lowest p50 that CPU allows at ${clients} clients on ${availableParallelism()} cores`,
        value: Number(((clients * cpuPerSearch) / availableParallelism()).toFixed(1)),
      },
    });
    for (const [quantile, value, reference] of [
      ['p50', fifty.p50, health.p50],
      ['p99', fifty.p99, health.p99],
    ] as const) {
      report.add({
        name: `${prefix} search ${quantile} with pageSize 50, ${clients} clients, ${large.pages.toLocaleString('en-US')} pages`,
        value: Number(value.toFixed(2)),
        unit: 'ms',
        reference: { name: `/healthz ${quantile}, ${clients} clients`, value: Number(reference.toFixed(2)) },
      });
    }

    // Readers repeat searches: the same 50 queries again, each already answered once from this generation.
    const repeated = queries.slice(0, 50);
    for (const query of repeated) await searchPages(server, query);
    const again = quantiles(await measureConcurrent(clients, seconds, (round) => searchPages(server, repeated[round % repeated.length])));
    for (const [quantile, value, reference] of [
      ['p50', again.p50, health.p50],
      ['p99', again.p99, health.p99],
    ] as const) {
      report.add({
        name: `${prefix} repeated search ${quantile}, ${clients} clients, ${large.pages.toLocaleString('en-US')} pages (answers kept per generation)`,
        value: Number(value.toFixed(2)),
        unit: 'ms',
        reference: { name: `/healthz ${quantile}, ${clients} clients`, value: Number(reference.toFixed(2)) },
      });
    }

    const { mcpName } = await updateProject(server, { docsPublic: true });
    const mcp = await mcpClient(server);
    try {
      const mcpLatencies = await measureConcurrent(1, seconds, (round) => mcp.search(queries[round % queries.length], mcpName));
      const direct = await measureConcurrent(1, seconds, (round) => searchPages(server, queries[round % queries.length]));
      report.add({
        name: `${prefix} MCP search tool round trip p50 (SDK client)`,
        value: Number(quantiles(mcpLatencies).p50.toFixed(2)),
        unit: 'ms',
        reference: { name: 'discovery search p50, one client', value: Number(quantiles(direct).p50.toFixed(2)) },
        target: { text: '≤ 20 ms', met: quantiles(mcpLatencies).p50 <= 20 },
      });
    } finally {
      await mcp.close();
    }

    const llmsPath = `/sites/${server.projectId}/llms.txt`;
    const coldStarted = performance.now();
    await fetchText(server, llmsPath);
    const cold = performance.now() - coldStarted;
    // The compressed copies are made off the event loop after the first request: wait for them.
    let served = await fetchBytes(server, llmsPath);
    for (let tries = 0; served.coding === 'identity' && tries < 100; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      served = await fetchBytes(server, llmsPath);
    }
    const llms = quantiles(await measureConcurrent(1, Math.min(seconds, 3), () => fetchBytes(server, llmsPath)));
    const decoded = quantiles(await measureConcurrent(1, Math.min(seconds, 3), () => fetchText(server, llmsPath)));
    report.add({
      name: `${prefix} llms.txt of ${large.pages.toLocaleString('en-US')} pages served (${(served.bytes / 1e6).toFixed(2)} MB ${served.coding}), p50`,
      value: Number(llms.p50.toFixed(2)),
      unit: 'ms',
      reference: { name: 'first request, built from the index', value: Number(cold.toFixed(2)) },
      target: { text: '≤ 50 ms', met: llms.p50 <= 50 },
    });
    report.add({
      name: `${prefix} llms.txt fetched and decoded to text by the client (fetch), p50`,
      value: Number(decoded.p50.toFixed(2)),
      unit: 'ms',
      reference: { name: 'served, bytes as sent', value: Number(llms.p50.toFixed(2)) },
    });
  } finally {
    await quire.stop();
    await database.drop();
  }
}

export const docsBench: BenchSuite = {
  name: 'docs',
  description: `docs served to agents and readers: builds of a real docs repository and of ${largePages.toLocaleString('en-US')} pages, search quality beside MiniSearch and Orama, search at ${clients} clients, MCP search and llms.txt (QUIRE_BENCH_DOCS_PAGES, QUIRE_BENCH_SECONDS)`,
  async run(report) {
    const corpus = qualityCorpus();
    const folder = mkdtempSync(join(tmpdir(), 'quire-bench-docs-'));
    try {
      const temporal = temporalRepository(folder, corpus.pages);
      const large = multipliedRepository(folder, corpus.pages, largePages);
      const cloned = { temporal: cloneSeconds(temporal, join(folder, 'clone-temporal')), large: cloneSeconds(large, join(folder, 'clone-large')) };
      report.add({
        name: `corpus: ${corpus.pages.length} pages of the Temporal docs, ${corpus.queries.length} keyword queries`,
        value: corpus.queries.length,
        unit: 'queries',
      });
      const databases = await benchDatabaseNames();
      const known: { references?: SearchQuality[] } = {};
      for (const name of databases) await runOn(report, await freshDatabase(name), { folder, temporal, large, cloned }, known);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  },
};
