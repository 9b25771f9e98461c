import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { requireKey, visibleProject } from '../../accounts/request-auth.ts';
import type { AppContext } from '../../http/context.ts';
import { errorResponses, ProjectParams } from '../../http/schemas.ts';
import type { ProjectRow } from '../../storage/tables/accounts.ts';
import { listDeliveries, redeliver } from './deliveries.ts';
import { createEndpoint, deleteEndpoint, findEndpoint, listEndpoints, rotateSecret, updateEndpoint } from './endpoints.ts';
import {
  CreateWebhookBody,
  Delivery,
  DeliveryList,
  DeliveryParams,
  DeliveryQuery,
  UpdateWebhookBody,
  Webhook,
  WebhookList,
  WebhookParams,
  WebhookWithSecret,
} from './schemas.ts';
import { deliveryView, endpointView } from './view.ts';

const errors = errorResponses(['invalid_request', 'unauthorized', 'forbidden', 'not_found', 'conflict', 'payload_too_large', 'rate_limited']);
const tags = ['Webhooks'];

export const webhookRoutes: FastifyPluginAsyncTypebox<{ context: AppContext }> = async (app, { context }) => {
  const dependencies = { db: context.storage.db, config: context.config };
  // The project is looked up before the body is validated, so a project the key cannot see is 404 whatever the body.
  const projects = new WeakMap<FastifyRequest, ProjectRow>();
  const withProject = async (request: FastifyRequest, _reply: FastifyReply) => {
    projects.set(request, await visibleProject(context, request, (request.params as { projectId: string }).projectId));
  };
  const read = [requireKey(context, 'read'), withProject];
  const write = [requireKey(context, 'write'), withProject];
  const projectOf = (request: FastifyRequest) => projects.get(request)!;

  app.post('/v2/agent/:projectId/webhooks', {
    onRequest: write,
    schema: {
      tags,
      summary: 'Create a webhook endpoint',
      description:
        'Quire POSTs the project’s job events to `url`, signed as Standard Webhooks. The answer is the only one that shows the `secret`. Without `events`, every type is sent.',
      params: ProjectParams,
      body: CreateWebhookBody,
      response: { 201: WebhookWithSecret, ...errors },
    },
    handler: async (request, reply) => {
      const { endpoint, secret } = await createEndpoint(dependencies, projectOf(request), request.body);
      return reply.code(201).send({ ...endpointView(endpoint), secret });
    },
  });

  app.get('/v2/agent/:projectId/webhooks', {
    onRequest: read,
    schema: {
      tags,
      summary: 'List webhook endpoints',
      description: 'Oldest first, without secrets.',
      params: ProjectParams,
      response: { 200: WebhookList, ...errors },
    },
    handler: async (request) => ({ webhooks: (await listEndpoints(context.storage.db, projectOf(request))).map(endpointView) }),
  });

  app.get('/v2/agent/:projectId/webhooks/:webhookId', {
    onRequest: read,
    schema: { tags, summary: 'Get a webhook endpoint', params: WebhookParams, response: { 200: Webhook, ...errors } },
    handler: async (request) => endpointView(await findEndpoint(context.storage.db, projectOf(request), request.params.webhookId)),
  });

  app.patch('/v2/agent/:projectId/webhooks/:webhookId', {
    onRequest: write,
    schema: {
      tags,
      summary: 'Change a webhook endpoint',
      description: 'Changes the fields given. `{"enabled": true}` turns on an endpoint Quire disabled after it kept failing.',
      params: WebhookParams,
      body: UpdateWebhookBody,
      response: { 200: Webhook, ...errors },
    },
    handler: async (request) =>
      endpointView(
        await updateEndpoint(dependencies, projectOf(request), request.params.webhookId, {
          ...request.body,
          description: request.body.description as string | null | undefined,
        }),
      ),
  });

  app.delete('/v2/agent/:projectId/webhooks/:webhookId', {
    onRequest: write,
    schema: {
      tags,
      summary: 'Delete a webhook endpoint',
      description: 'Deletes it with its deliveries and their log.',
      params: WebhookParams,
      response: { 204: { type: 'null' }, ...errors },
    },
    handler: async (request, reply) => {
      await deleteEndpoint(context.storage.db, projectOf(request), request.params.webhookId);
      return reply.code(204).send(null);
    },
  });

  app.post('/v2/agent/:projectId/webhooks/:webhookId/rotate-secret', {
    onRequest: write,
    schema: {
      tags,
      summary: 'Rotate a webhook secret',
      description: 'Makes a new secret, shown only in this answer. For 24 hours deliveries carry a signature with the previous secret too.',
      params: WebhookParams,
      response: { 200: WebhookWithSecret, ...errors },
    },
    handler: async (request) => {
      const { endpoint, secret } = await rotateSecret(dependencies, projectOf(request), request.params.webhookId);
      return { ...endpointView(endpoint), secret };
    },
  });

  app.get('/v2/agent/:projectId/webhooks/:webhookId/deliveries', {
    onRequest: read,
    schema: {
      tags,
      summary: 'List deliveries of a webhook endpoint',
      description: 'Newest first, each with its attempts (status code, duration, error): the delivery log.',
      params: WebhookParams,
      querystring: DeliveryQuery,
      response: { 200: DeliveryList, ...errors },
    },
    handler: async (request) => {
      const endpoint = await findEndpoint(context.storage.db, projectOf(request), request.params.webhookId);
      const page = await listDeliveries(context.storage.db, endpoint, { limit: request.query.limit ?? 20, cursor: request.query.cursor });
      return { deliveries: page.deliveries.map(deliveryView), nextCursor: page.nextCursor };
    },
  });

  app.post('/v2/agent/:projectId/webhooks/:webhookId/deliveries/:deliveryId/redeliver', {
    onRequest: write,
    schema: {
      tags,
      summary: 'Redeliver',
      description:
        'Sends the delivery again at once, with the same `webhook-id` and body, retried for a new window if it fails. 409 while an attempt is in flight or the endpoint is disabled.',
      params: DeliveryParams,
      response: { 200: Delivery, ...errors },
    },
    handler: async (request) => {
      const endpoint = await findEndpoint(context.storage.db, projectOf(request), request.params.webhookId);
      const delivery = deliveryView(await redeliver(context.storage.db, endpoint, request.params.deliveryId));
      context.events.emit('webhooks-queued');
      return delivery;
    },
  });
};
