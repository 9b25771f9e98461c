import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { withMcpName } from '../../accounts/mcp-name.ts';
import { flushInteractions } from '../../analytics/capture/record.ts';
import type { AppContext } from '../../http/context.ts';
import { ApiError } from '../../http/errors.ts';
import { handleSearchMcpRequest, searchMcpBodyLimit } from '../mcp/http.ts';
import { docsAuthorizer } from './access.ts';
import { answerSurface } from './answer.ts';
import { docsCounter, requestCounts } from './count.ts';
import { indexSource } from './index-source.ts';
import { docsLimits } from './limits.ts';
import { mcpSessionKey, quireSurfaceBase, siteOf } from './site.ts';
import { LlmsTextCache } from './site-files.ts';

interface SiteParams {
  projectId: string;
  '*'?: string;
}

const header = (value: string | string[] | undefined) => (Array.isArray(value) ? value.join(', ') : value);

/**
 * The site surface on Quire, `/sites/{projectId}`: llms.txt, llms-full.txt, each page's Markdown,
 * the MCP discovery document and the search MCP server, with the access rule of the docs (public
 * when `docsPublic`, else an assistant or admin key as Bearer). Every answer is counted, 404s up to the
 * project's budget and a client's budget in that project (QUIRE_DOCS_NOT_FOUND_RECORD_LIMIT_*).
 */
export async function siteSurfaceRoutes(app: FastifyInstance, { context }: { context: AppContext }): Promise<void> {
  const authorize = docsAuthorizer(context);
  const counter = docsCounter(context);
  const limits = docsLimits(context);
  const llmsText = new LlmsTextCache();
  // Searches and feedback are buffered (analytics/capture/interaction-buffer.ts): stored before the database closes.
  app.addHook('onClose', () => flushInteractions(context.analytics));

  async function serveFile(request: FastifyRequest<{ Params: SiteParams }>, reply: FastifyReply) {
    const project = await authorize(request, request.params.projectId);
    const path = `/${request.params['*'] ?? ''}`;
    const place = {
      storage: context.storage,
      llmsText,
      site: siteOf(project, context.config),
      base: quireSurfaceBase(project, context.config),
      anonymous: project.docs_public === 1,
      readerPages: true,
    };
    const answer = await answerSurface(place, {
      path,
      accept: header(request.headers.accept),
      acceptEncoding: header(request.headers['accept-encoding']),
      ifNoneMatch: header(request.headers['if-none-match']),
    });
    if (!answer) {
      if (await limits.recordsNotFound(project, request)) counter.view(request, project, { path, status: 404 });
      throw new ApiError('not_found', `The site has no ${path}: ask for /llms.txt (every page), a page's route, or its Markdown (/{route}.md).`);
    }
    counter.view(request, project, { path: answer.viewPath, status: answer.status, contentType: answer.headers['content-type'] });
    return reply.code(answer.status).headers(answer.headers).send(answer.body);
  }

  app.get('/sites/:projectId', serveFile);
  app.get('/sites/:projectId/*', serveFile);

  app.route<{ Params: SiteParams }>({
    method: ['GET', 'POST', 'DELETE'],
    url: '/sites/:projectId/mcp',
    bodyLimit: searchMcpBodyLimit,
    handler: async (request, reply) => {
      const project = await withMcpName(context.storage.db, await authorize(request, request.params.projectId));
      await limits.mcp(project, request, reply);
      const site = siteOf(project, context.config);
      return handleSearchMcpRequest(request, reply, {
        name: project.mcp_name!,
        siteName: site.name,
        source: indexSource(context.storage, project, site.siteUrl, requestCounts(counter, request, project)),
        sessionKey: mcpSessionKey(project),
      });
    },
  });
}
