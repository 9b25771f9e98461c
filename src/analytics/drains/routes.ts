import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { secretBox } from '../../accounts/secrets.ts';
import { publicUrl } from '../../config/config.ts';
import { requireKey, visibleProject } from '../../accounts/request-auth.ts';
import type { AppContext } from '../../http/context.ts';
import { conflict, notFound } from '../../http/errors.ts';
import { errorResponses, ProjectParams } from '../../http/schemas.ts';
import { createDrain, deleteDrain, drainOf, listDrains } from './drains.ts';
import { receiveRoutes } from './receive.ts';
import { CreatedDrain, DrainList, DrainParams, NewDrainBody } from './schemas.ts';

const errors = errorResponses(['invalid_request', 'unauthorized', 'forbidden', 'not_found', 'conflict']);
const tags = ['Log drains'];

/** Push log drains: managed with an admin key, fed by the hosts (receive.ts). */
export const drainRoutes: FastifyPluginAsyncTypebox<{ context: AppContext }> = async (app, { context }) => {
  const { storage, config } = context;
  const box = secretBox(config);
  const baseUrl = publicUrl(config);

  app.post('/v1/analytics/:projectId/drains', {
    onRequest: requireKey(context, 'write'),
    // Before the body is validated: another organization's project is 404 whatever the body says.
    preValidation: async (request) => void (await visibleProject(context, request, (request.params as { projectId: string }).projectId)),
    schema: {
      tags,
      summary: 'Create a log drain',
      description:
        'An HTTP endpoint your host posts its request logs to. The answer holds the drain’s `url` and `secret`, shown only here. Needs QUIRE_SECRET_KEY on the server (the secret is stored encrypted).',
      params: ProjectParams,
      body: NewDrainBody,
      response: { 201: CreatedDrain, ...errors },
    },
    handler: async (request, reply) => {
      const project = await visibleProject(context, request, request.params.projectId);
      if (!config.secretKey) {
        throw conflict(
          'This server has no QUIRE_SECRET_KEY, which drain secrets are encrypted with; the operator sets it ("openssl rand -base64 32") and restarts, then create the drain again.',
        );
      }
      const { row, secret } = await createDrain(storage.db, box, project.id, request.body);
      return reply.code(201).send({ ...drainOf(row, baseUrl), secret });
    },
  });

  app.get('/v1/analytics/:projectId/drains', {
    onRequest: requireKey(context, 'read'),
    schema: {
      tags,
      summary: 'List log drains',
      description: 'The project’s drains, oldest first, without their secrets.',
      params: ProjectParams,
      response: { 200: DrainList, ...errors },
    },
    handler: async (request) => {
      const project = await visibleProject(context, request, request.params.projectId);
      return { drains: (await listDrains(storage.db, project.id)).map((row) => drainOf(row, baseUrl)) };
    },
  });

  app.delete('/v1/analytics/:projectId/drains/:drainId', {
    onRequest: requireKey(context, 'write'),
    schema: {
      tags,
      summary: 'Delete a log drain',
      description: 'Batches sent to it afterwards are refused with 404; views it stored stay.',
      params: DrainParams,
      response: { 204: Type.Null({ description: 'Deleted.' }), ...errors },
    },
    handler: async (request, reply) => {
      const project = await visibleProject(context, request, request.params.projectId);
      if (!(await deleteDrain(storage.db, project.id, request.params.drainId))) throw notFound(`Drain ${request.params.drainId}`);
      return reply.code(204).send(null);
    },
  });

  await app.register(receiveRoutes, { context, box });
};
