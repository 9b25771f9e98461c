import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { requireKey, visibleProject } from '../accounts/request-auth.ts';
import type { AppContext } from '../http/context.ts';
import { errorResponses } from '../http/schemas.ts';
import type { ApiKeyRow } from '../storage/tables/accounts.ts';
import { cancelJob } from './cancel.ts';
import type { JobEventHub } from './events/hub.ts';
import { resumeAfter, sendJobEvents } from './events/stream.ts';
import { Job, JobParams } from './schemas.ts';
import { getJob } from './service.ts';
import { jobView } from './view.ts';

declare module '../http/context.ts' {
  interface AppContext {
    /** The live event streams of this process's clients (see jobs/events/hub.ts). */
    jobEvents: JobEventHub;
  }
}

const errors = errorResponses(['invalid_request', 'unauthorized', 'forbidden', 'not_found', 'conflict']);
const tags = ['Agent jobs'];
const EventsHeaders = Type.Object({
  'last-event-id': Type.Optional(
    Type.String({ maxLength: 20, description: 'The `id` of the last event received: the stream resumes after it. Omitted: from the start.' }),
  ),
});

/** Whom a cancel names in the job's `error`: the API key by its name and prefix. */
export function keyLabel(key: ApiKeyRow | null): string | null {
  return key ? `API key "${key.name}" (${key.prefix}…)` : null;
}

/** Cancel and the live event stream of a job. */
export const jobLiveRoutes: FastifyPluginAsyncTypebox<{ context: AppContext }> = async (app, { context }) => {
  const read = requireKey(context, 'read');
  const write = requireKey(context, 'write');
  // Streams stay open until their job ends: end them first, or closing the server would wait for them.
  app.addHook('preClose', async () => context.jobEvents.close());

  app.post('/v2/agent/:projectId/job/:id/cancel', {
    onRequest: write,
    schema: {
      tags,
      summary: 'Cancel an agent job',
      description:
        'Stops an `active` job within about two seconds, wherever it runs (a queued job never starts). The job ends `failed` with an `error` saying who cancelled it and when; nothing is pushed after the cancel. 409 when the job is not active. A follow-up message continues the job.',
      params: JobParams,
      response: { 200: Job, ...errors },
    },
    handler: async (request) => {
      const project = await visibleProject(context, request, request.params.projectId);
      return jobView(await cancelJob(context, project, request.params.id, keyLabel(request.apiKey)));
    },
  });

  app.get('/v2/agent/:projectId/job/:id/events', {
    onRequest: read,
    schema: {
      tags,
      summary: 'Stream a job’s events',
      description: [
        'A `text/event-stream` of the job: every transcript entry (`event: message`, `data`: the entry as `GET …/messages` returns it) and every status change (`event: status`, `data`: the job object), each with an `id` that increases within the job.',
        'Send `Last-Event-ID` to resume after an event. Comment lines (`: heartbeat`) keep an idle stream open. The stream ends once the job is no longer `active` and everything before has been sent.',
      ].join(' '),
      params: JobParams,
      headers: EventsHeaders,
      produces: ['text/event-stream'],
      response: { 200: Type.String({ description: 'Server-sent events (`id`, `event`, `data` lines).' }), ...errors },
    },
    handler: async (request, reply) => {
      const project = await visibleProject(context, request, request.params.projectId);
      const job = await getJob(context, project, request.params.id);
      const after = resumeAfter(request.headers['last-event-id']);
      sendJobEvents(context, reply, job, after);
    },
  });
};
