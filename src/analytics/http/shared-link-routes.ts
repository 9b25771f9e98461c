import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { requireKey, visibleProject } from '../../accounts/request-auth.ts';
import type { AppContext } from '../../http/context.ts';
import { ApiError } from '../../http/errors.ts';
import { errorResponses, ProjectParams } from '../../http/schemas.ts';
import { createSharedLink, listSharedLinks, revokeSharedLink } from '../query/shared-links.ts';

const errors = errorResponses(['invalid_request', 'unauthorized', 'forbidden', 'not_found']);
const tags = ['Visitor analytics'];
const Link = Type.Object({ id: Type.String(), createdAt: Type.String({ description: 'ISO 8601.' }) });

/** Read-only links to a project's analytics page (`/share/{token}`): created and revoked with scope `write`. */
export const sharedLinkRoutes: FastifyPluginAsyncTypebox<{ context: AppContext }> = async (app, { context }) => {
  const read = requireKey(context, 'read');
  const write = requireKey(context, 'write');

  app.post('/v1/analytics/:projectId/shared-links', {
    onRequest: write,
    schema: {
      tags,
      summary: 'Create a shared link',
      description:
        'A link that shows the project’s analytics page read-only to anyone who has it, without signing in, and reaches nothing else. `url` (`/share/{token}`, 32 random characters) is shown only in this answer.',
      params: ProjectParams,
      response: { 201: Type.Object({ id: Type.String(), url: Type.String(), createdAt: Type.String() }), ...errors },
    },
    handler: async (request, reply) => {
      const project = await visibleProject(context, request, request.params.projectId);
      const link = await createSharedLink(context.storage.db, project.id);
      return reply.code(201).send({ id: link.id, url: `/share/${link.token}`, createdAt: link.createdAt });
    },
  });

  app.get('/v1/analytics/:projectId/shared-links', {
    onRequest: read,
    schema: {
      tags,
      summary: 'List shared links',
      description: 'The project’s working shared links, newest first, without their tokens.',
      params: ProjectParams,
      response: { 200: Type.Object({ sharedLinks: Type.Array(Link) }), ...errors },
    },
    handler: async (request) => {
      const project = await visibleProject(context, request, request.params.projectId);
      return { sharedLinks: await listSharedLinks(context.storage.db, project.id) };
    },
  });

  app.delete('/v1/analytics/:projectId/shared-links/:linkId', {
    onRequest: write,
    schema: {
      tags,
      summary: 'Revoke a shared link',
      description: 'The link stops working at once.',
      params: Type.Object({ ...ProjectParams.properties, linkId: Type.String({ maxLength: 64 }) }),
      response: { 204: Type.Null(), ...errors },
    },
    handler: async (request, reply) => {
      const project = await visibleProject(context, request, request.params.projectId);
      if (!(await revokeSharedLink(context.storage.db, project.id, request.params.linkId)))
        throw new ApiError('not_found', `Project ${project.id} has no working shared link ${request.params.linkId}; GET …/shared-links lists them.`);
      return reply.code(204).send(null);
    },
  });
};
