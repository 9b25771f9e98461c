/**
 * Quire's docs search on the quality corpus: the pages indexed as a build writes them, searched with searchDocs,
 * and ranked by page (each page at the place of its best section), so it compares with the page-level references.
 */
import { searchDocs } from '../src/docs/search/search.ts';
import type { Storage } from '../src/storage/dialect.ts';
import type { PageSearch } from './docs-baselines.ts';
import { qualityCorpus } from './docs-corpus.ts';
import { evaluateSearch, type SearchQuality } from './docs-quality.ts';
import { indexCorpusPages } from './docs-quire-index.ts';

/** Sections asked for: the most searchDocs returns, so ten distinct pages are usually among them. */
const sectionLimit = 50;

/** searchDocs over `projectId` as a page search: the first occurrence of each page path, best first. */
export function quirePageSearch(storage: Storage, projectId: string): PageSearch {
  return async (query) => {
    const hits = await searchDocs(storage, projectId, query, { limit: sectionLimit });
    return [...new Set(hits.map((hit) => hit.path))].slice(0, 10);
  };
}

/** Indexes the corpus as `projectId` in `storage` and evaluates Quire's search on its queries. */
export async function evaluateQuire(name: string, storage: Storage, projectId = 'prj_quality'): Promise<SearchQuality> {
  const { pages, queries } = qualityCorpus();
  await indexCorpusPages(storage, projectId, pages);
  return evaluateSearch(name, quirePageSearch(storage, projectId), queries);
}
