/**
 * Puts the quality corpus into Quire's docs index the way a build would: each page analyzed into sections
 * (`analyzePage`), written in one build per project. The speed and quality measurements both start from it.
 */
import { beginBuild } from '../src/docs/index/begin.ts';
import { finishBuild } from '../src/docs/index/finish.ts';
import type { PageToWrite } from '../src/docs/index/types.ts';
import { writePages } from '../src/docs/index/write.ts';
import { analyzePage } from '../src/sites/page.ts';
import type { Storage } from '../src/storage/dialect.ts';
import { multiplyPages, type CorpusPage } from './docs-corpus.ts';

/** Pages per writePages call, as a builder writes them in batches. */
const pagesPerWrite = 250;

const analyzed = new Map<string, PageToWrite>();

/** One corpus page as the index takes it; analysis is cached by path and text, since copies repeat pages. */
async function pageToWrite(page: CorpusPage, position: number): Promise<PageToWrite> {
  const key = `${page.path}\n${page.markdown}`;
  let cached = analyzed.get(key);
  if (!cached) {
    const analysis = await analyzePage(page.path, page.markdown);
    const route = `/${page.path.replace(/\.mdx?$/, '')}`;
    cached = {
      path: page.path,
      route,
      title: analysis.title,
      description: analysis.frontMatter.description,
      keywords: analysis.frontMatter.keywords,
      group: page.path.split('/')[1] ?? 'Pages',
      position,
      hidden: analysis.frontMatter.hidden,
      markdown: page.markdown,
      sections: analysis.sections,
      sourceHash: String(position),
    };
    analyzed.set(key, cached);
  }
  return { ...cached, position, sourceHash: String(position) };
}

/** Writes `pages` (corpus pages or their copies) as the current docs of `projectId`, in navigation order. */
export async function indexCorpusPages(storage: Storage, projectId: string, pages: CorpusPage[]): Promise<void> {
  const build = await beginBuild(storage, projectId, 'bench');
  for (let start = 0; start < pages.length; start += pagesPerWrite) {
    const batch = await Promise.all(pages.slice(start, start + pagesPerWrite).map((page, index) => pageToWrite(page, start + index)));
    await writePages(storage, build, batch);
  }
  await finishBuild(storage, build);
}

/** The corpus multiplied to `count` pages (see multiplyPages) as the docs of `projectId`. */
export async function indexMultipliedCorpus(storage: Storage, projectId: string, pages: CorpusPage[], count: number): Promise<void> {
  await indexCorpusPages(storage, projectId, multiplyPages(pages, count));
}
