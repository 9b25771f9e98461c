import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../http/context.ts';

const Health = Type.Object({ status: Type.String(), database: Type.Optional(Type.String()) });

/** `/healthz`: the process answers. `/readyz`: it can also reach its database. */
export const healthRoutes: FastifyPluginAsyncTypebox<{ context: AppContext }> = async (app, { context }) => {
  app.get('/healthz', { schema: { tags: ['Operations'], summary: 'Liveness', security: [], response: { 200: Health } } }, async () => ({ status: 'ok' }));

  app.get(
    '/readyz',
    { schema: { tags: ['Operations'], summary: 'Readiness (database reachable)', security: [], response: { 200: Health, 503: Health } } },
    async (request, reply) => {
      try {
        await context.storage.ping();
        return { status: 'ready', database: context.storage.profile.name };
      } catch (error) {
        request.log.warn({ err: error }, 'readiness check: database unreachable');
        return reply.code(503).send({ status: 'unavailable', database: 'unreachable' });
      }
    },
  );
};
