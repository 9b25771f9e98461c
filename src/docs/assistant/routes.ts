import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../http/context.ts';
import { errorResponses } from '../../http/schemas.ts';
import type { ProjectRow } from '../../storage/tables/accounts.ts';
import { DomainParams } from '../discovery/schemas.ts';
import { docsAuthorizer } from '../surface/access.ts';
import { docsLimits } from '../surface/limits.ts';
import { exportRoutes } from './export-routes.ts';
import { answerMessage, callerHeader, callerOf } from './message.ts';
import { dataStream, uiMessageStream, type AnswerProtocol } from './protocols.ts';
import { MessageBody } from './schemas.ts';

const errors = errorResponses(['invalid_request', 'unauthorized', 'forbidden', 'not_found', 'project_not_configured', 'payload_too_large', 'rate_limited']);
const tags = ['Discovery'];

/** The two versions of the operation: the path and the wire format of each. */
const versions: { path: string; protocol: AnswerProtocol; summary: string; description: string }[] = [
  {
    path: '/discovery/v2/assistant/:domain/message',
    protocol: uiMessageStream,
    summary: 'Ask the assistant (AI SDK 5+)',
    description:
      'Answers from the project’s docs as an AI SDK UI message stream (`x-vercel-ai-ui-message-stream: v1`): `start`, text parts as the model writes, a `source-url` part per cited page, `finish` with `messageMetadata.threadId`, `data: [DONE]`. A limit reached or a provider failure ends the stream with an `error` part. The first message of a thread answers with `X-Thread-Id` and, once, `X-Thread-Key`; a follow-up sends both as `threadId` and `threadKey`.',
  },
  {
    path: '/discovery/v1/assistant/:domain/message',
    protocol: dataStream,
    summary: 'Ask the assistant (AI SDK 4)',
    description:
      'The same answer as the AI SDK 4 data stream (`x-vercel-ai-data-stream: v1`): `0:` text parts, `h:` source parts, `d:` finish with `threadId`, `3:` an error. Messages may carry `content` or `parts`.',
  },
];

/** Browsers may ask from any origin; an assistant key's allowed origins are checked on the request itself. */
function allowOrigin(request: FastifyRequest, reply: FastifyReply): void {
  const origin = request.headers.origin;
  if (origin !== undefined) reply.header('access-control-allow-origin', origin).header('vary', 'origin');
  reply.header('access-control-expose-headers', 'X-Thread-Id, X-Thread-Key');
}

/** The docs assistant: Mintlify's message operations under `/discovery`, and its analytics exports. */
export const assistantRoutes: FastifyPluginAsyncTypebox<{ context: AppContext }> = async (app, { context }) => {
  const authorize = docsAuthorizer(context, { keyRequired: true });
  const limits = docsLimits(context);
  // Access is decided before the body is validated, so another organization's project is 404 whatever the body says.
  const projects = new WeakMap<FastifyRequest, ProjectRow>();
  const preValidation = async (request: FastifyRequest) => {
    projects.set(request, await authorize(request, (request.params as { domain: string }).domain));
  };

  for (const version of versions) {
    app.options(version.path, { schema: { hide: true } }, async (request, reply) => {
      allowOrigin(request, reply);
      return reply
        .code(204)
        .header('access-control-allow-methods', 'POST, OPTIONS')
        .header('access-control-allow-headers', `authorization, content-type, ${callerHeader}`)
        .header('access-control-max-age', '86400')
        .send();
    });
    app.post(version.path, {
      preValidation,
      bodyLimit: context.config.assistantBodyLimitBytes,
      schema: {
        tags,
        summary: version.summary,
        description: version.description,
        params: DomainParams,
        body: MessageBody,
        response: { 200: { description: 'The answer as a stream; see the description.', type: 'string' }, ...errors },
      },
      handler: async (request, reply) => {
        allowOrigin(request, reply);
        const project = projects.get(request)!;
        const limit = () => limits.assistant(project, request, reply);
        return answerMessage(context, { limit, protocol: version.protocol, caller: callerOf(request) }, project, request.body, reply);
      },
    });
  }

  await app.register(exportRoutes, { context });
};
