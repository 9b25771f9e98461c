import { tool, zodSchema } from 'ai';
import { z } from 'zod';
import { cap, resultLimit } from '../../llm/caps.ts';
import type { Storage } from '../../storage/dialect.ts';
import { getPage, listPages } from '../index/pages.ts';
import { searchDocs } from '../search/search.ts';
import type { Outcome, Reading } from './reading.ts';

export interface AssistantToolOptions {
  storage: Storage;
  projectId: string;
  /** Sections each search returns (`retrievalPageSize`). */
  pageSize: number;
  /** Only pages of these navigation groups are searched (`filter.groups`). */
  groups?: string[];
}

/** Pages list_pages shows at most: navigation beyond it is cut with a note to name a group. */
const listedPagesLimit = 500;

/**
 * Characters of a section's Markdown a search result gives the model (about a thousand tokens); read_page
 * gives the whole page. A model reads its prompt in time and money in proportion to its length: five whole
 * sections of real docs were 40,000 characters and more (long code samples), sent again at every step.
 */
export const sectionExcerptLimit = 4000;

/**
 * `markdown` cut to about `limit` characters at a paragraph's (else a line's) end, a code block it leaves
 * open closed, and a note of what was left out that names the page to read for the rest.
 */
export function sectionExcerpt(markdown: string, path: string, limit = sectionExcerptLimit): string {
  if (markdown.length <= limit) return markdown;
  const paragraph = markdown.lastIndexOf('\n\n', limit);
  const line = markdown.lastIndexOf('\n', limit);
  const end = paragraph >= limit / 2 ? paragraph : line >= limit / 2 ? line : limit;
  let excerpt = markdown.slice(0, end).trimEnd();
  const fences = excerpt.split('\n').flatMap((text) => /^\s*(```|~~~)/.exec(text)?.[1] ?? []);
  if (fences.length % 2 === 1) excerpt += `\n${fences.at(-1)}`;
  return `${excerpt}\n\n[${markdown.length - end} more characters of this section: read_page "${path}" for the whole page]`;
}

/**
 * The tools' inputs, made once: the SDK turns a schema into the JSON Schema the model is sent at every
 * step, and keeps it only on a schema object it is given again (a new `z.object` per message would be
 * converted anew for each step of each message).
 */
const inputs = {
  search: zodSchema(z.object({ query: z.string().min(1).max(1000).describe('What to look for, in words.') })),
  read: zodSchema(z.object({ path: z.string().min(1).max(1000).describe('The page path (`guides/setup.mdx`) or its route (`/guides/setup`).') })),
  list: zodSchema(z.object({ group: z.string().max(200).optional().describe('A navigation group, as listed.') })),
  outcome: zodSchema(
    z.object({
      resolution: z
        .enum(['answered', 'unanswered', 'clarifying_question'])
        .describe('answered; unanswered when the docs do not cover it; clarifying_question when you asked the reader back.'),
      sources: z.array(z.string().max(1000)).max(20).describe('Paths of the pages the answer used.'),
    }),
  ),
};

/**
 * The assistant's tools, fixed by the contract so evals and scripted models work with any version:
 * three read-only views of the docs index and `record_outcome`. What the model searched and read is
 * noted in `reading`, which decides what an answer may cite.
 */
export function assistantTools(options: AssistantToolOptions, reading: Reading) {
  const { storage, projectId } = options;
  return {
    search_docs: tool({
      description: 'Searches the documentation and returns the best matching sections, each with its page path, title and Markdown.',
      inputSchema: inputs.search,
      execute: async ({ query }) => {
        const hits = await searchDocs(storage, projectId, query, { limit: options.pageSize, groups: options.groups });
        if (hits.length === 0) return `No sections match "${query}". Try other words, or list_pages to see what the docs cover.`;
        for (const hit of hits) reading.noteSection(hit);
        const sections = hits.map(
          (hit) => `## ${hit.title}${hit.anchor ? `: ${hit.heading}` : ''}\npath: ${hit.path}\n\n${sectionExcerpt(hit.markdown.trim(), hit.path)}`,
        );
        return cap(sections.join('\n\n---\n\n'), resultLimit);
      },
    }),
    read_page: tool({
      description: 'Reads one page of the documentation in full, as Markdown. Give the page path a search or list_pages returned.',
      inputSchema: inputs.read,
      execute: async ({ path }) => {
        const page = await getPage(storage, projectId, path);
        if (!page) return `There is no page at "${path}". Use a path that search_docs or list_pages returned.`;
        reading.notePage(page);
        return cap(`# ${page.title}\npath: ${page.path}\n\n${page.markdown.trim()}`, resultLimit);
      },
    }),
    list_pages: tool({
      description: 'Lists the documentation’s pages in navigation order, with their group, path and title; give a group to list only its pages.',
      inputSchema: inputs.list,
      execute: async ({ group }) => {
        const { pages, hasMore } = await listPages(storage, projectId, { limit: listedPagesLimit, offset: 0 });
        const shown = group ? pages.filter((page) => page.group === group) : pages;
        if (shown.length === 0)
          return group ? `No page is in the group "${group}". Call list_pages without a group to see the groups.` : 'The docs have no pages.';
        const lines = shown.map((page) => `- [${page.group}] ${page.path}: ${page.title}${page.description ? ` (${page.description})` : ''}`);
        return cap(lines.join('\n') + (hasMore && !group ? `\n[cut at ${listedPagesLimit} pages; give a group]` : ''), resultLimit);
      },
    }),
    record_outcome: tool({
      description:
        'Call once, at the end of your answer: whether the docs answered the question, and the paths of the pages your answer used (pages you searched or read).',
      inputSchema: inputs.outcome,
      execute: async (outcome: Outcome) => {
        reading.record(outcome);
        return 'Recorded.';
      },
    }),
  };
}
