import type { FastifyRequest } from 'fastify';
import { recordInteractions, recordRequest, type InteractionSender, type RecordedRequest } from '../../analytics/capture/record.ts';
import { clientAddressResolver } from '../../http/client-address.ts';
import type { AppContext } from '../../http/context.ts';
import type { ProjectRow } from '../../storage/tables/accounts.ts';
import type { McpClientInfo } from '../mcp/source.ts';

const header = (value: string | string[] | undefined) => (Array.isArray(value) ? value.join(', ') : value);

/** What a view adds to the request it was answered by: the page's path on the site, the answer's status, and MCP's marks. */
export type ViewFields = Pick<RecordedRequest, 'path'> & Partial<Pick<RecordedRequest, 'method' | 'status' | 'contentType' | 'via' | 'client'>>;

/** MCP's marks of a search or feedback that came through the MCP server: who the client said it was. */
export type McpFields = Pick<RecordedRequest, 'via' | 'client'>;

/** Counts what the docs features answer, through analytics' entry point (capture/record.ts). */
export interface DocsCounter {
  /** One view of a page or file of the site (its path relative to the site: `/guides/setup.md`, `/llms.txt`). */
  view(request: FastifyRequest, project: ProjectRow, view: ViewFields): void;
  /** One search and the number of sections it found, by the sender of `request`. */
  search(request: FastifyRequest, project: ProjectRow, query: string, hits: number, mcp?: McpFields): void;
  /** Feedback an agent sent through the MCP server about the page at `route`. */
  feedback(request: FastifyRequest, project: ProjectRow, route: string, comment: string, mcp?: McpFields): Promise<void>;
}

/** What one request's MCP tools do, counted for its project (index-source.ts's SourceCounts). */
export function requestCounts(counter: DocsCounter, request: FastifyRequest, project: ProjectRow) {
  return {
    view: (view: ViewFields) => counter.view(request, project, view),
    search: (query: string, hits: number, client: McpClientInfo | undefined) => counter.search(request, project, query, hits, { via: 'mcp', client }),
    feedback: (route: string, comment: string, client: McpClientInfo | undefined) => counter.feedback(request, project, route, comment, { via: 'mcp', client }),
  };
}

/**
 * Recording never delays or fails the answer: views and searches are left to commit in the
 * background (the entry points log a failure and never reject). Each view carries the request's
 * user agent, address (as QUIRE_TRUSTED_PROXIES resolves it), Accept and signature headers, so
 * classification and verification apply as to any other view; searches and feedback carry the user
 * agent and address, kept only as the sender's keyed visitor, so docs gaps count distinct senders.
 */
export function docsCounter(context: AppContext): DocsCounter {
  const clientAddress = clientAddressResolver(context.config.trustedProxies);
  const sender = (request: FastifyRequest, mcp: McpFields | undefined): InteractionSender => ({
    userAgent: header(request.headers['user-agent']),
    ip: clientAddress(request),
    ...mcp,
  });
  return {
    view(request, project, view) {
      void recordRequest(context.analytics, project, {
        method: request.method,
        status: 200,
        userAgent: header(request.headers['user-agent']),
        ip: clientAddress(request),
        accept: header(request.headers.accept),
        referrer: header(request.headers.referer),
        headers: request.headers,
        ...view,
      });
    },
    search(request, project, query, hits, mcp) {
      void recordInteractions(context.analytics, project, [{ kind: 'search', query, hits }], sender(request, mcp));
    },
    async feedback(request, project, route, comment, mcp) {
      await recordInteractions(context.analytics, project, [{ kind: 'feedback', path: route, source: 'agent', helpful: false, comment }], sender(request, mcp));
    },
  };
}
