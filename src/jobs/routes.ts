import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { requireKey, visibleProject } from '../accounts/request-auth.ts';
import type { AppContext } from '../http/context.ts';
import { sendSerialized } from '../http/json.ts';
import { rateLimitHeaders } from '../http/rate-limit.ts';
import { errorResponses, ProjectParams } from '../http/schemas.ts';
import { CreateBody, IdempotencyHeaders, Job, JobList, JobParams, ListQuery, PromptBody, Transcript } from './schemas.ts';
import { archiveJob, createJob, followUp, getJob, getJobJson, listJobs } from './service.ts';
import { listMessages } from './transcript.ts';
import { jobView } from './view.ts';

const errors = errorResponses([
  'invalid_request',
  'unauthorized',
  'forbidden',
  'not_found',
  'conflict',
  'project_not_configured',
  'payload_too_large',
  'rate_limited',
]);
const tags = ['Agent jobs'];

export const jobRoutes: FastifyPluginAsyncTypebox<{ context: AppContext }> = async (app, { context }) => {
  const read = requireKey(context, 'read');
  const write = requireKey(context, 'write');

  app.post('/v2/agent/:projectId/job', {
    onRequest: write,
    schema: {
      tags,
      summary: 'Create an agent job',
      description:
        'Queues a job in which the agent works on the prompt; poll the job until it is no longer `active`, or follow its event stream. Optional `ref`, `branch`, `draft` and `model` choose the job’s base, work branch, pull request kind and model. Shares the per-project limit with follow-ups.',
      params: ProjectParams,
      headers: IdempotencyHeaders,
      body: CreateBody,
      response: { 201: Job, ...errors },
    },
    handler: async (request, reply) => {
      const project = await visibleProject(context, request, request.params.projectId);
      const { prompt, ...options } = request.body;
      const { job, rateLimit } = await createJob(context, project, { prompt, options, idempotencyKey: request.headers['idempotency-key'] });
      return reply.code(201).headers(rateLimitHeaders(rateLimit)).send(jobView(job));
    },
  });

  app.get('/v2/agent/:projectId/job/:id', {
    onRequest: read,
    schema: {
      tags,
      summary: 'Get an agent job',
      description: 'Poll until `status` is `completed`, `archived` or `failed`.',
      params: JobParams,
      response: { 200: Job, ...errors },
    },
    handler: async (request, reply) => {
      const project = await visibleProject(context, request, request.params.projectId);
      return sendSerialized(reply, await getJobJson(context, project, request.params.id));
    },
  });

  app.post('/v2/agent/:projectId/job/:id/message', {
    onRequest: write,
    schema: {
      tags,
      summary: 'Send a follow-up message',
      description:
        'Reopens a `completed` or `failed` job: the agent continues on the same branch and pull request. 409 while active or archived. A job of an admin MCP session runs with the model a new job of the project gets, and its `model` changes to it (409 `project_not_configured` when the project cannot run agent jobs).',
      params: JobParams,
      headers: IdempotencyHeaders,
      body: PromptBody,
      response: { 200: Job, ...errors },
    },
    handler: async (request, reply) => {
      const project = await visibleProject(context, request, request.params.projectId);
      const { job, rateLimit } = await followUp(context, project, request.params.id, {
        prompt: request.body.prompt,
        idempotencyKey: request.headers['idempotency-key'],
      });
      return reply.headers(rateLimitHeaders(rateLimit)).send(jobView(job));
    },
  });

  app.get('/v2/agent/:projectId/jobs', {
    onRequest: read,
    schema: {
      tags,
      summary: 'List agent jobs',
      description: 'Newest first, paged by `nextCursor`.',
      params: ProjectParams,
      querystring: ListQuery,
      response: { 200: JobList, ...errors },
    },
    handler: async (request) => {
      const project = await visibleProject(context, request, request.params.projectId);
      const page = await listJobs(context, project, { limit: request.query.limit ?? 20, cursor: request.query.cursor, status: request.query.status });
      return { jobs: page.jobs.map(jobView), nextCursor: page.nextCursor };
    },
  });

  app.post('/v2/agent/:projectId/job/:id/archive', {
    onRequest: write,
    schema: {
      tags,
      summary: 'Archive an agent job',
      description: 'Archives a `completed` or `failed` job; it stays readable. 409 while active.',
      params: JobParams,
      response: { 200: Job, ...errors },
    },
    handler: async (request) => {
      const project = await visibleProject(context, request, request.params.projectId);
      return jobView(await archiveJob(context, project, request.params.id));
    },
  });

  app.get('/v2/agent/:projectId/job/:id/messages', {
    onRequest: read,
    schema: {
      tags,
      summary: 'Get a job transcript',
      description: 'Prompts, agent replies, tool calls (results redacted of secrets and capped in size) and job events, oldest first.',
      params: JobParams,
      response: { 200: Transcript, ...errors },
    },
    handler: async (request) => {
      const project = await visibleProject(context, request, request.params.projectId);
      const job = await getJob(context, project, request.params.id);
      return { messages: await listMessages(context.storage.db, job.id) };
    },
  });
};
