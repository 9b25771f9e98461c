import type { Storage } from '../../storage/dialect.ts';
import type { ProjectRow } from '../../storage/tables/accounts.ts';
import { getPage, listPages } from '../index/pages.ts';
import { readDocsState } from '../index/state.ts';
import { TtlCache } from '../../lib/ttl-cache.ts';
import type { DocsFile, DocsSource, McpClientInfo } from '../mcp/source.ts';
import { searchDocs } from '../search/search.ts';
import type { ViewFields } from './count.ts';
import { pageUrl, viewPath } from './site-files.ts';

/**
 * Where the tools' views, searches and feedback are counted for one request: on Quire through the
 * analytics entry point (count.ts), behind `quire proxy` through the proxy's recorder.
 */
export interface SourceCounts {
  view(view: ViewFields): void;
  search(query: string, hits: number, client: McpClientInfo | undefined): void;
  feedback(route: string, comment: string, client: McpClientInfo | undefined): Promise<void>;
}

/** Pages listed at once for the filesystem tool: every page of a large site in one ordered query. */
const allPages = { limit: 1_000_000, offset: 0 };

/** A project's pages as the filesystem tool's files, and each page's route. */
interface PageList {
  files: DocsFile[];
  routes: Map<string, string>;
}

/**
 * Page lists per project and generation of its index, shared by every call until the next build: listing a
 * 20,000-page site for each command (and indexing it as a tree, docs-tree.ts) held the event loop for each call.
 */
const pageLists = new TtlCache<{ list: Promise<PageList> }>(10 * 60_000, { maxEntries: 32 });

async function pagesOf(storage: Storage, projectId: string): Promise<PageList> {
  const { generation } = await readDocsState(storage, projectId);
  const key = `${projectId}:${generation}`;
  const { list } = (await pageLists.get(key, async () => ({
    list: listPages(storage, projectId, allPages).then(({ pages }) => ({
      files: pages.map((page) => ({ path: page.path, read: async () => (await getPage(storage, projectId, page.path))?.markdown ?? '' })),
      routes: new Map(pages.map((page) => [page.path, page.route])),
    })),
  })))!;
  return list.catch((error: unknown) => {
    pageLists.delete(key);
    throw error;
  });
}

/**
 * The search MCP server's view of one project's docs index, for one HTTP request: search through
 * the same search as the discovery API, the current generation's pages as files (read only when a
 * command needs their text), and what the tools did counted as views, searches and feedback.
 */
export function indexSource(storage: Storage, project: ProjectRow, siteUrl: string, counts: SourceCounts): DocsSource {
  let pages: Promise<PageList> | undefined;
  const pageList = () => (pages ??= pagesOf(storage, project.id));
  const routeOf = async (path: string) => (await pageList()).routes.get(path);
  return {
    async search(query, { limit }) {
      const hits = await searchDocs(storage, project.id, query, { limit });
      return hits.map((hit) => ({
        title: hit.anchor ? `${hit.title}: ${hit.heading}` : hit.title,
        url: pageUrl(siteUrl, hit.route, hit.anchor),
        text: hit.markdown,
        path: hit.path,
      }));
    },
    async files(): Promise<DocsFile[]> {
      return (await pageList()).files;
    },
    async submitFeedback(path, description, client) {
      await counts.feedback((await routeOf(path)) ?? `/${path}`, description, client);
    },
    onPageRead(paths, client) {
      void Promise.all(paths.map(routeOf)).then((found) => {
        for (const route of found) if (route !== undefined) counts.view({ path: viewPath(route), method: 'GET', via: 'mcp', client });
      });
    },
    onSearch(query, hits, client) {
      counts.search(query, hits, client);
    },
  };
}
