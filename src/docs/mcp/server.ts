import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { feedbackLimits } from '../../analytics/capture/record.ts';
import { isStorableText, unstorableMessage } from '../../lib/storable-text.ts';
import { treeOf } from './docs-tree.ts';
import { CommandError } from './errors.ts';
import { filesystemUsage, runFilesystemCommand } from './filesystem.ts';
import type { DocsSource, McpClientInfo } from './source.ts';

export interface SearchMcpServerOptions {
  /** The project's `mcpName` (`[a-z0-9_]{1,40}`): the tools are `search_{name}` and so on. */
  name: string;
  /** The documentation's name as readers know it, e.g. `Acme`. */
  siteName: string;
  source: DocsSource;
  /** The client named in an earlier `initialize` of this session; without it, this request's own `initialize`. */
  client?: McpClientInfo;
  /** Sections a search returns (default 10). */
  searchLimit?: number;
}

const readOnly = { readOnlyHint: true, idempotentHint: true, openWorldHint: false } as const;

/**
 * The search MCP server of one project's docs: search, a read-only filesystem of the pages, and
 * feedback. One instance answers one HTTP request (see http.ts), so it holds nothing between calls.
 */
export function createSearchMcpServer(options: SearchMcpServerOptions): McpServer {
  const { name, siteName, source } = options;
  const tools = { search: `search_${name}`, filesystem: `query_docs_filesystem_${name}`, feedback: `submit_feedback_${name}` };
  const server = new McpServer(
    { name: `${name}-docs`, title: `${siteName} documentation`, version: '1.0.0' },
    {
      instructions:
        `Search and read the ${siteName} documentation. Start with ${tools.search} for a question; read whole pages with ` +
        `${tools.filesystem} ("cat path", with the paths that search and ls give); browse with "tree -L 2" or "ls folder"; ` +
        `find exact words with "rg -i pattern". When a page is wrong or misses something, say so with ${tools.feedback}.`,
    },
  );
  const client = () => options.client ?? server.server.getClientVersion();
  const text = (value: string) => ({ type: 'text' as const, text: value });

  server.registerTool(
    tools.search,
    {
      title: `Search the ${siteName} docs`,
      description:
        `Searches the ${siteName} documentation and returns the best-matching sections (up to ${options.searchLimit ?? 10}), ` +
        `each with its title, URL, page path and Markdown. Read a whole page next with ${tools.filesystem} and "cat <path>".`,
      inputSchema: {
        query: z.string().min(1).max(1000).describe('What to look for, in words or a question.'),
        version: z.string().max(100).optional().describe('Only sections of this docs version, when the docs have versions.'),
        language: z.string().max(100).optional().describe('Only sections in this language, e.g. "en", when the docs have several.'),
      },
      annotations: readOnly,
    },
    async ({ query, version, language }) => {
      const hits = await source.search(query, { version, language, limit: options.searchLimit ?? 10 });
      source.onSearch(query, hits.length, client());
      if (hits.length === 0) {
        return {
          content: [text(`No sections match ${JSON.stringify(query)}. Try other words, or find exact text with ${tools.filesystem} and "rg -i pattern".`)],
        };
      }
      return { content: hits.map((hit) => text(`# ${hit.title}\nURL: ${hit.url}\nPath: ${hit.path}\n\n${hit.text}`)) };
    },
  );

  server.registerTool(
    tools.filesystem,
    {
      title: `Browse and read the ${siteName} docs`,
      description:
        `Runs one read-only command over a virtual tree of the ${siteName} documentation pages (their Markdown source files). ` +
        `Output is at most 100,000 bytes; longer output is cut with a note. Not a shell.\n\n${filesystemUsage}`,
      inputSchema: { command: z.string().describe('One command, e.g. "tree -L 2", "cat guides/setup.mdx", "rg -i -l webhook".') },
      annotations: readOnly,
    },
    async ({ command }) => {
      const answer = await runFilesystemCommand(command, await source.files());
      if (answer.pagesRead.length > 0) source.onPageRead(answer.pagesRead, client());
      return { content: [text(answer.text)], isError: answer.isError };
    },
  );

  server.registerTool(
    tools.feedback,
    {
      title: `Report a problem in the ${siteName} docs`,
      description:
        `Tells the ${siteName} documentation team that a page is wrong, unclear, outdated or misses something. ` +
        `Give the page's path (as search, ls or tree show it) and what is wrong. It is recorded for the team; nothing else changes.`,
      inputSchema: {
        path: z.string().min(1).max(1000).describe('The page, e.g. "guides/setup.mdx".'),
        description: z.string().min(1).max(feedbackLimits.comment).describe('What is wrong or missing, and what you expected to find.'),
      },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    async ({ path, description }) => {
      // Refused here, not dropped where it is stored while the caller is told it was recorded.
      if (!isStorableText(description)) return { content: [text(unstorableMessage('The description'))], isError: true };
      let page: string;
      try {
        page = treeOf(await source.files()).requireFile(path).path;
      } catch (error) {
        if (error instanceof CommandError) return { content: [text(error.message)], isError: true };
        throw error;
      }
      await source.submitFeedback(page, description, client());
      return { content: [text(`Thank you: your feedback on ${page} is recorded for the documentation team.`)] };
    },
  );
  return server;
}
