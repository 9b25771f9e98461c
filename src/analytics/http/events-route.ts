import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import type { Readable } from 'node:stream';
import { requireKey, visibleProject } from '../../accounts/request-auth.ts';
import type { AppContext } from '../../http/context.ts';
import { ApiError } from '../../http/errors.ts';
import { jsonFailure } from '../../http/json.ts';
import { errorResponses, ProjectParams } from '../../http/schemas.ts';
import { storePrepared } from './events-request.ts';
import { maxEventsPerRequest } from '../ingest/ingest.ts';
import { reportIngested } from '../ingest/ingested.ts';
import { inlineBelow, ParsePool } from '../../lib/parse-pool.ts';
import { readBody } from '../../http/shared-body.ts';
import { eventsBodyWork, type ParsedEventsBody } from './events-body.ts';
import { IngestBody, IngestResult } from './schemas.ts';

const errors = errorResponses(['invalid_request', 'unauthorized', 'forbidden', 'not_found', 'payload_too_large', 'rate_limited']);

/**
 * `POST /v1/analytics/:projectId/events`, in a context of its own: its bodies are parsed and checked by
 * a parse pool (lib/parse-pool.ts) into prepared events, and schema validation sees the body with its
 * events array emptied (events-body.ts), so the answers to a malformed body stay what they were.
 */
export const eventsRoute: FastifyPluginAsyncTypebox<{ context: AppContext }> = async (app, { context }) => {
  const { config } = context;
  const pool = new ParsePool(new URL('./parse-thread.ts', import.meta.url), eventsBodyWork, config.parseThreads);
  app.addHook('onClose', () => pool.close());
  const parsedBodies = new WeakMap<FastifyRequest, ParsedEventsBody & { failure?: undefined }>();
  const parser = (ndjson: boolean) => async (request: FastifyRequest, payload: Readable) => {
    // Bodies a thread parses are read into shared memory, which crosses to it without a copy (http/shared-body.ts).
    const body = await readBody(request, payload, inlineBelow);
    let parsed: ParsedEventsBody;
    try {
      parsed = await pool.run({ bytes: body.bytes, ndjson, now: Date.now() }, body.bytes.byteLength);
    } finally {
      body.release();
    }
    if (parsed.failure !== undefined) throw jsonFailure(parsed.failure);
    parsedBodies.set(request, parsed);
    return parsed.body;
  };
  app.removeContentTypeParser(['application/json', 'application/x-ndjson']);
  app.addContentTypeParser('application/json', parser(false));
  app.addContentTypeParser('application/x-ndjson', parser(true));

  app.post('/v1/analytics/:projectId/events', {
    onRequest: requireKey(context, 'ingest'),
    bodyLimit: config.ingestBodyLimitBytes,
    schema: {
      tags: ['Visitor analytics'],
      summary: 'Ingest page views',
      description: `JSON \`{"events": [...]}\` or NDJSON (\`Content-Type: application/x-ndjson\`), up to ${maxEventsPerRequest.toLocaleString('en-US')} events. Each event is validated on its own; the answer comes after the accepted events are committed.`,
      params: ProjectParams,
      body: IngestBody,
      response: { 202: IngestResult, ...errors },
    },
    handler: async (request, reply) => {
      const project = await visibleProject(context, request, request.params.projectId);
      const parsed = parsedBodies.get(request)!;
      if (parsed.count > maxEventsPerRequest) {
        throw new ApiError('payload_too_large', `This request has ${parsed.count} events; send at most ${maxEventsPerRequest} per request.`);
      }
      const result = await storePrepared(context.analytics, project, parsed.prepared!);
      reportIngested(context, 'api', result.accepted, result.rejected);
      return reply.code(202).send({ accepted: result.accepted, rejected: result.rejected, errors: result.errors });
    },
  });
};
