import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { siteUrlOf } from '../../accounts/projects.ts';
import { requireKey, visibleProject } from '../../accounts/request-auth.ts';
import { publicUrl } from '../../config/config.ts';
import type { AppContext } from '../../http/context.ts';
import { errorResponses, ProjectParams } from '../../http/schemas.ts';
import { docsStatus, requestBuild } from '../index/build/status.ts';
import { listPages } from '../index/pages.ts';
import { DocsStatusResponse, PagesQuery, PagesResponse } from './schemas.ts';

const errors = errorResponses(['invalid_request', 'unauthorized', 'forbidden', 'not_found', 'rate_limited']);
const tags = ['Docs'];

/** The docs index of a project over the admin API: its state, its pages, and a way to build it now. */
export const docsIndexRoutes: FastifyPluginAsyncTypebox<{ context: AppContext }> = async (app, { context }) => {
  const projectOf = (request: FastifyRequest) => visibleProject(context, request, (request.params as { projectId: string }).projectId);

  app.get('/v1/docs/:projectId', {
    onRequest: requireKey(context, 'read'),
    schema: {
      tags,
      summary: 'Get the state of a project’s docs index',
      params: ProjectParams,
      response: { 200: DocsStatusResponse, ...errors },
    },
    handler: async (request) => docsStatus(context.storage, (await projectOf(request)).id),
  });

  app.post('/v1/docs/:projectId/refresh', {
    onRequest: requireKey(context, 'write'),
    schema: {
      tags,
      summary: 'Build a project’s docs index now',
      description:
        'Requests a build from the repository at the project’s ref; answers at once with the index state (`building`). Requests made while a build is queued coalesce with it. A build whose commit is the one already built changes nothing.',
      params: ProjectParams,
      response: { 202: DocsStatusResponse, ...errors },
    },
    handler: async (request, reply) => {
      const project = await projectOf(request);
      await requestBuild(context.storage, context.events, project.id);
      return reply.code(202).send(await docsStatus(context.storage, project.id));
    },
  });

  app.get('/v1/docs/:projectId/pages', {
    onRequest: requireKey(context, 'read'),
    schema: {
      tags,
      summary: 'List the pages of a project’s docs index',
      description: 'The pages of the generation that answers, in navigation order.',
      params: ProjectParams,
      querystring: PagesQuery,
      response: { 200: PagesResponse, ...errors },
    },
    handler: async (request) => {
      const project = await projectOf(request);
      const { limit = 50, offset = 0 } = request.query;
      const listed = await listPages(context.storage, project.id, { limit, offset });
      const site = siteUrlOf(project, publicUrl(context.config)).replace(/\/+$/, '');
      return {
        pages: listed.pages.map((page) => ({
          path: page.path,
          route: page.route,
          url: `${site}${page.route}`,
          title: page.title,
          description: page.description,
          group: page.group,
        })),
        hasMore: listed.hasMore,
      };
    },
  });
};
