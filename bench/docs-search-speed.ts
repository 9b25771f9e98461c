/**
 * Docs search speed as readers load it: `concurrency` clients each sending one search after another for
 * `seconds`, queries taken in turn from a list, every search's time from call to answer recorded.
 */
import { searchDocs } from '../src/docs/search/search.ts';
import type { Storage } from '../src/storage/dialect.ts';
import { percentile } from './report.ts';

export interface SearchSpeed {
  /** Milliseconds. */
  p50: number;
  p99: number;
  searches: number;
  /** Searches per second over all clients. */
  throughput: number;
  /** Mean hits per search, to tell a fast search from one that finds nothing. */
  hits: number;
}

export interface SearchLoad {
  concurrency: number;
  seconds: number;
}

/** Searches `queries` (in turn, from a different start for each client) in `projectId` under `load`. */
export async function measureSearch(storage: Storage, projectId: string, queries: string[], load: SearchLoad): Promise<SearchSpeed> {
  // Warm the statement caches and the database's pages, as a serving process would be.
  for (const query of queries.slice(0, 20)) await searchDocs(storage, projectId, query);
  const times: number[] = [];
  let hits = 0;
  let next = 0;
  const started = performance.now();
  const deadline = started + load.seconds * 1000;
  const client = async () => {
    while (performance.now() < deadline) {
      const query = queries[next++ % queries.length]!;
      const begun = performance.now();
      const found = await searchDocs(storage, projectId, query);
      times.push(performance.now() - begun);
      hits += found.length;
    }
  };
  await Promise.all(Array.from({ length: load.concurrency }, client));
  const elapsed = (performance.now() - started) / 1000;
  times.sort((a, b) => a - b);
  return {
    p50: percentile(times, 0.5),
    p99: percentile(times, 0.99),
    searches: times.length,
    throughput: times.length / elapsed,
    hits: hits / Math.max(1, times.length),
  };
}
