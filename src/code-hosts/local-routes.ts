import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { changePath } from './local.ts';

/**
 * Change links of local repositories handed out before the change page moved into the dashboard
 * (`/changes/<job id>`) lead to it. The answer is the same for every id, so it tells nothing about
 * which jobs exist; the dashboard page decides who may see the change.
 */
export const localChangeRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/changes/:jobId', {
    schema: {
      tags: ['Changes'],
      summary: 'Former address of a local repository change page',
      description: 'Redirects to the dashboard page of the change, which needs a dashboard session of the job’s organization.',
      params: Type.Object({ jobId: Type.String({ minLength: 1, maxLength: 100 }) }),
      security: [],
    },
    handler: async (request, reply) => reply.redirect(changePath(request.params.jobId), 301),
  });
};
