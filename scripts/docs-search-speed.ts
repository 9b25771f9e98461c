/**
 * A speed and quality check run by hand: `node scripts/docs-search-speed.ts [pages] [seconds] [others] [databases]` indexes
 * the real corpus multiplied to `pages` pages (default 10,000) in one project and `others` further projects
 * (default 2) of half as many beside it, on SQLite and on PostgreSQL (when reachable), then prints search
 * p50/p99 with one and with 16 clients on the corpus queries, and recall@5 and MRR of the corpus itself.
 * `databases` is `sqlite`, `postgres` or both (the default), comma-separated.
 */
import { freshDatabase, postgresReachable } from '../bench/databases.ts';
import { qualityCorpus } from '../bench/docs-corpus.ts';
import { evaluateQuire } from '../bench/docs-quality-quire.ts';
import { indexMultipliedCorpus } from '../bench/docs-quire-index.ts';
import { measureSearch } from '../bench/docs-search-speed.ts';
import { loadConfig } from '../src/config/config.ts';
import { openStorage } from '../src/storage/open.ts';

const pageCount = Number(process.argv[2] ?? 10_000);
const seconds = Number(process.argv[3] ?? 10);
const otherProjects = Number(process.argv[4] ?? 2);

const { pages, queries } = qualityCorpus();
const texts = queries.map((query) => query.query);
const wanted = (process.argv[5] ?? 'sqlite,postgres').split(',');
const reachable = (await postgresReachable()) ? (['sqlite', 'postgres'] as const) : (['sqlite'] as const);
const names = reachable.filter((name) => wanted.includes(name));
for (const name of names) {
  const database = await freshDatabase(name);
  const storage = await openStorage(loadConfig(database.env));
  try {
    const started = performance.now();
    for (let other = 0; other < otherProjects; other++) await indexMultipliedCorpus(storage, `prj_other_${other}`, pages, pageCount / 2);
    await indexMultipliedCorpus(storage, 'prj_speed', pages, pageCount);
    const buildSeconds = (performance.now() - started) / 1000;
    const quality = await evaluateQuire(name, storage);
    process.stdout.write(
      `${name}: ${pageCount} pages and ${otherProjects} projects of ${pageCount / 2} beside them, built in ${buildSeconds.toFixed(1)} s; ` +
        `recall@5 ${quality.recallAt5.toFixed(3)}, MRR ${quality.mrr.toFixed(3)} (${quality.queries} queries)\n`,
    );
    for (const concurrency of [1, 16]) {
      const speed = await measureSearch(storage, 'prj_speed', texts, { concurrency, seconds });
      process.stdout.write(
        `  ${String(concurrency).padStart(2)} clients: p50 ${speed.p50.toFixed(1)} ms, p99 ${speed.p99.toFixed(1)} ms, ` +
          `${speed.throughput.toFixed(0)} searches/s, ${speed.hits.toFixed(1)} hits each\n`,
      );
    }
  } finally {
    await storage.close();
    await database.drop();
  }
}
