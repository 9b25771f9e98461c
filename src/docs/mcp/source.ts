/**
 * What the search MCP server needs from a project's docs index. The server knows nothing of how
 * pages are built or stored: the site surface gives it one `DocsSource` per request, bound to the
 * project and to the HTTP request that the analytics records.
 */

/** The client an MCP request comes from, as it named itself in `initialize` (e.g. `claude-code`). */
export interface McpClientInfo {
  name: string;
  version: string;
}

/** One section the search returned. */
export interface DocsSearchHit {
  title: string;
  /** Public address of the section: the site's URL, the page's route and the section's anchor. */
  url: string;
  /** The section's Markdown. */
  text: string;
  /** The page's file path, e.g. `guides/setup.mdx`: what the filesystem tool and feedback take. */
  path: string;
}

export interface DocsSearchOptions {
  version?: string;
  language?: string;
  /** Sections returned at most. */
  limit: number;
}

/** A page as the filesystem tool shows it: its file path, and its Markdown read only when asked for. */
export interface DocsFile {
  /** The page's file path under the docs folder, without a leading `/`, e.g. `guides/setup.mdx`. */
  path: string;
  read(): Promise<string>;
}

export interface DocsSource {
  search(query: string, options: DocsSearchOptions): Promise<DocsSearchHit[]>;
  /** Every page of the last complete build. */
  files(): Promise<DocsFile[]>;
  /** Records `{source: "agent", helpful: false, comment: description}` for the page at `path`. */
  submitFeedback(path: string, description: string, client: McpClientInfo | undefined): Promise<void>;
  /** Pages whose content a tool returned, whole or in part: one view each. */
  onPageRead(paths: string[], client: McpClientInfo | undefined): void;
  /** A search and how many sections it found. */
  onSearch(query: string, hits: number, client: McpClientInfo | undefined): void;
}
