/**
 * Search quality on a real docs site: recall@5 and MRR@10 of any page search over the Temporal documentation's own
 * keyword queries (see docs-corpus.ts). `node bench/docs-quality.ts` prints the corpus and the two references.
 */
import { fileURLToPath } from 'node:url';
import { baselines, type PageSearch } from './docs-baselines.ts';
import { qualityCorpus, type CorpusQuery } from './docs-corpus.ts';

export interface SearchQuality {
  name: string;
  /** Mean share of a query's relevant pages in its first five results, out of at most five (a query with eight relevant pages and five of them on top scores 1). */
  recallAt5: number;
  /** Mean reciprocal rank of the first relevant page within the first ten results (0 when none is there). */
  mrr: number;
  queries: number;
}

/** Scores one query's results against its relevant pages: [recall@5, reciprocal rank within ten]. */
export function scoreResults(results: string[], relevant: string[]): [number, number] {
  const wanted = new Set(relevant);
  const found = results.slice(0, 5).filter((path) => wanted.has(path)).length;
  const rank = results.slice(0, 10).findIndex((path) => wanted.has(path));
  return [found / Math.min(5, wanted.size), rank === -1 ? 0 : 1 / (rank + 1)];
}

/** Runs every query through `search` one after the other, so a search's own timing is not disturbed. */
export async function evaluateSearch(name: string, search: PageSearch, queries: CorpusQuery[] = qualityCorpus().queries): Promise<SearchQuality> {
  let recall = 0;
  let reciprocalRanks = 0;
  for (const { query, relevant } of queries) {
    const [queryRecall, reciprocalRank] = scoreResults(await search(query), relevant);
    recall += queryRecall;
    reciprocalRanks += reciprocalRank;
  }
  const count = Math.max(1, queries.length);
  return { name, recallAt5: recall / count, mrr: reciprocalRanks / count, queries: queries.length };
}

async function printBaselines(): Promise<void> {
  const { pages, queries } = qualityCorpus();
  const relevantPerQuery = queries.reduce((sum, query) => sum + query.relevant.length, 0) / queries.length;
  process.stdout.write(`Temporal documentation: ${pages.length} pages, ${queries.length} queries (${relevantPerQuery.toFixed(2)} relevant pages each)\n`);
  for (const { name, search } of await baselines(pages)) {
    const quality = await evaluateSearch(name, search, queries);
    process.stdout.write(`  ${name.padEnd(12)} recall@5 ${quality.recallAt5.toFixed(3)}   MRR@10 ${quality.mrr.toFixed(3)}\n`);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await printBaselines();
