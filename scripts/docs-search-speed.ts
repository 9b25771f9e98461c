/**
 * A speed check run by hand: `node scripts/docs-search-speed.ts [pages] [queries]` writes generated
 * pages (default 10,000) in one docs build on SQLite and on PostgreSQL (when reachable), then times
 * searches one after another and prints the build time and the search p50/p99 of each database.
 */
import { generateDocsPages, generateDocsQueries } from '../bench/docs-data.ts';
import { freshDatabase, postgresReachable } from '../bench/databases.ts';
import { loadConfig } from '../src/config/config.ts';
import { beginBuild } from '../src/docs/index/begin.ts';
import { finishBuild } from '../src/docs/index/finish.ts';
import { writePages } from '../src/docs/index/write.ts';
import { searchDocs } from '../src/docs/search/search.ts';
import { openStorage } from '../src/storage/open.ts';

const pageCount = Number(process.argv[2] ?? 10_000);
const queryCount = Number(process.argv[3] ?? 500);
const pagesPerWrite = 500;

const percentile = (sorted: number[], share: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * share))]!;

const pages = generateDocsPages(pageCount);
const queries = generateDocsQueries(queryCount);
const names = (await postgresReachable()) ? (['sqlite', 'postgres'] as const) : (['sqlite'] as const);
for (const name of names) {
  const database = await freshDatabase(name);
  const storage = await openStorage(loadConfig(database.env));
  try {
    let started = performance.now();
    const build = await beginBuild(storage, 'prj_speed', 'commit');
    for (let start = 0; start < pages.length; start += pagesPerWrite) await writePages(storage, build, pages.slice(start, start + pagesPerWrite));
    await finishBuild(storage, build);
    const buildSeconds = (performance.now() - started) / 1000;
    for (const query of queries.slice(0, 20)) await searchDocs(storage, 'prj_speed', query);
    const times: number[] = [];
    let hits = 0;
    for (const query of queries) {
      started = performance.now();
      hits += (await searchDocs(storage, 'prj_speed', query)).length;
      times.push(performance.now() - started);
    }
    times.sort((a, b) => a - b);
    const sections = pages.reduce((sum, page) => sum + page.sections.length, 0);
    process.stdout.write(
      `${name}: ${pageCount} pages, ${sections} sections built in ${buildSeconds.toFixed(1)} s; ${queries.length} searches: ` +
        `p50 ${percentile(times, 0.5).toFixed(1)} ms, p99 ${percentile(times, 0.99).toFixed(1)} ms, ${(hits / queries.length).toFixed(1)} hits each\n`,
    );
  } finally {
    await storage.close();
    await database.drop();
  }
}
