/**
 * The references Quire's docs search is measured against: MiniSearch and Orama as an ordinary user sets them up.
 * One document per page with two fields, its title and the Markdown after its front matter, and each library's
 * defaults everywhere else (BM25 ranking, no boosts, no prefix or fuzzy matching, their own tokenizers).
 */
import { create, insertMultiple, search } from '@orama/orama';
import MiniSearch from 'minisearch';
import { pageBody, type CorpusPage } from './docs-corpus.ts';

/** A docs search under test: the paths of the pages it finds for `query`, best first. */
export type PageSearch = (query: string) => Promise<string[]>;

/** How many results a search returns: the evaluation looks no further than the tenth. */
const resultCount = 10;

function documents(pages: CorpusPage[]): { id: string; title: string; text: string }[] {
  return pages.map((page) => ({ id: page.path, title: page.title, text: pageBody(page.markdown) }));
}

export function miniSearchBaseline(pages: CorpusPage[]): PageSearch {
  const index = new MiniSearch({ fields: ['title', 'text'] });
  index.addAll(documents(pages));
  return async (query) =>
    index
      .search(query)
      .slice(0, resultCount)
      .map((result) => String(result.id));
}

export async function oramaBaseline(pages: CorpusPage[]): Promise<PageSearch> {
  const database = create({ schema: { title: 'string', text: 'string' } as const });
  await insertMultiple(database, documents(pages));
  return async (query) => {
    const results = await search(database, { term: query, limit: resultCount });
    return results.hits.map((hit) => hit.id);
  };
}

/** Both references by name, ready to search the same pages. */
export async function baselines(pages: CorpusPage[]): Promise<{ name: string; search: PageSearch }[]> {
  return [
    { name: 'MiniSearch', search: miniSearchBaseline(pages) },
    { name: 'Orama', search: await oramaBaseline(pages) },
  ];
}
