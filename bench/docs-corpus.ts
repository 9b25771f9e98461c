/**
 * The search-quality corpus: Temporal's documentation (MIT, vendored under `fixtures/temporal-docs/`, see its
 * ORIGIN.md), with queries written by its authors: every `keywords` phrase of the pages' front matter is a query,
 * and its relevant pages are the pages that carry it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Document, parseDocument } from 'yaml';

/** One page as a docs repository holds it: its path in the site, its title, and its Markdown with front matter. */
export interface CorpusPage {
  path: string;
  title: string;
  markdown: string;
}

export interface CorpusQuery {
  query: string;
  /** Paths of the pages whose front matter carries the query, in path order. */
  relevant: string[];
}

export interface QualityCorpus {
  pages: CorpusPage[];
  queries: CorpusQuery[];
}

const root = fileURLToPath(new URL('./fixtures/temporal-docs/', import.meta.url));
/** Removed from the indexed copy: `keywords` are the queries, and `tags` repeat them ("Namespaces", "Temporal Cloud"). */
const hiddenFields = ['keywords', 'tags'];
/** A keyword on more pages than this is a genre tag ("explanation" on 54 pages, "how-to" on 29), not a search. */
const mostRelevantPages = 10;
const frontMatter = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?/;

/** Lower case, single spaces, no trailing list punctuation: the same phrase written twice is one query. */
export function normalise(phrase: string): string {
  return phrase
    .normalize('NFKC')
    .toLowerCase()
    .replace(/\s+/g, ' ')
    .replace(/^[\s,;]+|[\s,;]+$/g, '');
}

/** The Markdown after its front matter: what a page says. */
export function pageBody(markdown: string): string {
  return markdown.replace(frontMatter, '');
}

function readPage(path: string): { page: CorpusPage; keywords: string[] } {
  const text = readFileSync(join(root, path), 'utf8');
  const heading = /^#\s+(.+)$/m.exec(text)?.[1];
  const match = frontMatter.exec(text);
  if (!match) return { page: { path, title: heading ?? basename(path), markdown: text }, keywords: [] };
  const document = parseDocument(match[1]);
  const fields = (document.toJSON() ?? {}) as { title?: unknown; keywords?: unknown };
  const keywords = Array.isArray(fields.keywords) ? fields.keywords.map(String) : [];
  for (const field of hiddenFields) document.delete(field);
  const markdown = `---\n${document.toString({ lineWidth: 0 })}---\n${text.slice(match[0].length)}`;
  return { page: { path, title: String(fields.title ?? heading ?? basename(path)), markdown }, keywords };
}

function readCorpus(): QualityCorpus {
  const paths = readdirSync(join(root, 'docs'), { recursive: true, encoding: 'utf8' })
    .filter((path) => /\.mdx?$/.test(path))
    .map((path) => `docs/${path.split('\\').join('/')}`)
    .sort();
  const pages: CorpusPage[] = [];
  const relevant = new Map<string, Set<string>>();
  for (const path of paths) {
    const { page, keywords } = readPage(path);
    pages.push(page);
    const title = normalise(page.title);
    for (const keyword of keywords.map(normalise)) {
      // A keyword that is the page's own title verbatim would test title matching, not search.
      if (keyword === '' || keyword === title) continue;
      relevant.set(keyword, (relevant.get(keyword) ?? new Set()).add(path));
    }
  }
  const queries = [...relevant]
    .filter(([, pathsOfQuery]) => pathsOfQuery.size <= mostRelevantPages)
    .map(([query, pathsOfQuery]) => ({ query, relevant: [...pathsOfQuery].sort() }))
    .sort((a, b) => a.query.localeCompare(b.query));
  return { pages, queries };
}

let corpus: QualityCorpus | undefined;

/** The vendored pages, keywords and tags removed from their front matter, and the queries their keywords make. */
export function qualityCorpus(): QualityCorpus {
  corpus ??= readCorpus();
  return corpus;
}

function withTitle(markdown: string, title: string): string {
  const match = frontMatter.exec(markdown);
  const document: Document = match ? parseDocument(match[1]) : new Document({});
  document.set('title', title);
  return `---\n${document.toString({ lineWidth: 0 })}---\n${markdown.slice(match?.[0].length ?? 0)}`;
}

/**
 * `count` distinct pages for the speed benchmarks: the real pages over and over, copy N under `copy-N/` with
 * "(copy N)" in its title, so paths and titles never repeat while the text stays real documentation.
 */
export function multiplyPages(pages: CorpusPage[], count: number): CorpusPage[] {
  return Array.from({ length: count }, (_, index) => {
    const page = pages[index % pages.length];
    const copy = Math.floor(index / pages.length);
    if (copy === 0) return page;
    const title = `${page.title} (copy ${copy})`;
    return { path: `copy-${copy}/${page.path}`, title, markdown: withTitle(page.markdown, title) };
  });
}
