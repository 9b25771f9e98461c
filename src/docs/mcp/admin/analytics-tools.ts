import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { Scope } from '../../../accounts/keys.ts';
import { apiResult } from './results.ts';

/** Calls Quire's own API with the MCP request's key, so the operation's rules (scopes, tenancy, limits, validation) are the API's own. */
export type ApiCall = (method: 'GET' | 'POST', url: string, payload?: Record<string, unknown>) => Promise<{ statusCode: number; body: string }>;

/** The analytics exports as tools: the tool, the API operation it answers with, and what it tells. */
const exports = [
  {
    name: 'visitors',
    path: 'visitors',
    title: 'Unique visitors per page',
    says: 'unique visitors per page and site-wide, split into humans and AI agents, most visited first',
    maxLimit: 250,
  },
  {
    name: 'agents',
    path: 'agents',
    title: 'AI agents',
    says: 'the AI agents that read the docs, with their views and visitors, most active first',
    maxLimit: 250,
  },
  {
    name: 'searches',
    path: 'searches',
    title: 'Docs searches',
    says: 'what readers and agents searched for, with hit counts (0 hits: the docs miss it) and click-through, most searched first',
    maxLimit: 100,
  },
  { name: 'feedback', path: 'feedback', title: 'Docs feedback', says: 'feedback on pages from readers and agents, newest first', maxLimit: 100 },
  {
    name: 'gaps',
    path: 'gaps',
    title: 'Docs gaps',
    says:
      'the docs gaps: unanswered assistant questions, searches without hits, "not helpful" feedback and 404s grouped by what was asked and by page, ' +
      'each with its kind, evidence counts, visitors affected, up to 5 examples and its paths, most visitors first (dismissed gaps left out)',
    maxLimit: 100,
    next: 'Use a gap’s examples and paths to checkout and write the smallest change that answers them, or hand it to Quire’s agent with create_job.',
  },
] as const satisfies readonly { name: string; path: string; title: string; says: string; maxLimit: number; next?: string }[];

const defaultNext = 'Use it to find what the docs should cover better, then checkout to fix it.';

const readOnly = { readOnlyHint: true, idempotentHint: true, openWorldHint: false } as const;

const projectId = z.string().min(1).max(64).describe('The project, as list_projects gives it.');
const dateFrom = z.string().max(40).optional().describe('Start, inclusive: a date (2026-11-01) or a date-time.');
const dateTo = z.string().max(40).optional().describe('End, exclusive: a date or a date-time.');
/**
 * Each tool's input, built once: a server is made per HTTP request (see ../http.ts), and building the
 * schemas again was most of the cost of making one.
 */
const inputs = new Map(
  exports.map((tool) => [
    tool.name,
    { projectId, dateFrom, dateTo, limit: z.number().int().min(1).max(tool.maxLimit).optional().describe(`Rows to return, 1 to ${tool.maxLimit}.`) },
  ]),
);

/** Registers the analytics reading tools; each answers exactly what its `GET /v1/analytics/{projectId}/…` export does. */
export function analyticsTools(server: McpServer, api: ApiCall, lacks: (scope: Scope) => CallToolResult | null): void {
  for (const tool of exports) {
    const { maxLimit } = tool;
    server.registerTool(
      tool.name,
      {
        title: tool.title,
        description:
          `Returns ${tool.says}, as GET /v1/analytics/{projectId}/${tool.path} does (same ranges, defaults and limits; at most ${maxLimit} rows). ` +
          ('next' in tool ? tool.next : defaultNext),
        inputSchema: inputs.get(tool.name)!,
        annotations: readOnly,
      },
      async ({ projectId: project, dateFrom: from, dateTo: to, limit }) => {
        const denied = lacks('read');
        if (denied) return denied;
        const query = new URLSearchParams();
        if (from !== undefined) query.set('dateFrom', from);
        if (to !== undefined) query.set('dateTo', to);
        if (limit !== undefined) query.set('limit', String(limit));
        const search = query.size > 0 ? `?${query}` : '';
        return apiResult(await api('GET', `/v1/analytics/${encodeURIComponent(project)}/${tool.path}${search}`));
      },
    );
  }
}
