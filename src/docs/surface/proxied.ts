/**
 * The site surface at a docs site's own root, for `quire proxy` (which takes it as analytics'
 * ProxySurface, composed by server/proxy.ts): the same files and MCP server as `/sites/{projectId}`,
 * with the project's `siteUrl` as their base. The project is read again every `refreshMilliseconds`,
 * so turning `docsPublic` on or off needs no restart.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { findProject } from '../../accounts/projects.ts';
import { recordInteractions } from '../../analytics/capture/record.ts';
import type { Config } from '../../config/config.ts';
import { ApiError } from '../../http/errors.ts';
import type { Storage } from '../../storage/dialect.ts';
import type { ProjectRow } from '../../storage/tables/accounts.ts';
import { answerSearchMcp, type McpHttpAnswer } from '../mcp/http.ts';
import type { McpClientInfo } from '../mcp/source.ts';
import { answerSurface, type SurfaceAnswer, type SurfaceRequest } from './answer.ts';
import { indexSource } from './index-source.ts';
import { docsLimits } from './limits.ts';
import { mcpSessionKey, siteOf } from './site.ts';
import { LlmsTextCache } from './site-files.ts';
import { staleValue } from '../../lib/stale-value.ts';

export interface ProxiedSurfaceOptions {
  storage: Storage;
  config: Config;
  projectId: string;
  /** Where the MCP tools' searches and feedback are stored. */
  analytics: Parameters<typeof recordInteractions>[0];
  /** How long the project's settings are kept before being read again (default 10,000 ms). */
  refreshMilliseconds?: number;
}

/** One MCP request behind the proxy; its page reads are recorded by the proxy, like its other requests. */
export interface ProxiedMcpRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: unknown;
  ip: string;
  pageRead(viewPath: string, client: McpClientInfo | undefined): void;
}

export interface ProxiedSurface {
  link: string;
  answer(request: SurfaceRequest): Promise<SurfaceAnswer | null>;
  mcp(request: ProxiedMcpRequest): Promise<McpHttpAnswer>;
}

const errorAnswer = (error: ApiError): McpHttpAnswer => ({
  status: error.status,
  headers: { 'content-type': 'application/json; charset=utf-8', ...error.headers },
  body: JSON.stringify(error.toBody()),
});

export function proxiedSurface(options: ProxiedSurfaceOptions): { current(): Promise<ProxiedSurface | null> } {
  const { storage, config, analytics } = options;
  const llmsText = new LlmsTextCache();
  const limits = docsLimits({ storage, config });
  const project = staleValue(() => findProject(storage.db, options.projectId), options.refreshMilliseconds ?? 10_000);

  function served(row: ProjectRow): ProxiedSurface {
    const site = siteOf(row, config);
    const place = { storage, llmsText, site, base: site.siteUrl, anonymous: true };
    return {
      link: `<${site.siteUrl}/llms.txt>; rel="llms-txt"`,
      answer: (request) => answerSurface(place, request),
      async mcp(request) {
        let limitHeaders: Record<string, string>;
        try {
          limitHeaders = await limits.mcpCall(row, request.ip);
        } catch (error) {
          if (error instanceof ApiError) return errorAnswer(error);
          throw error;
        }
        const userAgent = request.headers['user-agent'];
        const sender = (client: McpClientInfo | undefined) => ({ userAgent, ip: request.ip, via: 'mcp' as const, client });
        const counts = {
          view: (view: { path: string; client?: McpClientInfo }) => request.pageRead(view.path, view.client),
          search: (query: string, hits: number, client: McpClientInfo | undefined) =>
            void recordInteractions(analytics, row, [{ kind: 'search', query, hits }], sender(client)),
          feedback: async (route: string, comment: string, client: McpClientInfo | undefined) =>
            void (await recordInteractions(analytics, row, [{ kind: 'feedback', path: route, source: 'agent', helpful: false, comment }], sender(client))),
        };
        const answer = await answerSearchMcp(request, {
          name: row.mcp_name!,
          siteName: site.name,
          source: indexSource(storage, row, site.siteUrl, counts),
          sessionKey: mcpSessionKey(row),
        });
        return { ...answer, headers: { ...limitHeaders, ...answer.headers } };
      },
    };
  }

  return {
    async current() {
      const row = await project();
      return row?.docs_public === 1 ? served(row) : null;
    },
  };
}
