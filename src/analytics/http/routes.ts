import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { requireKey, visibleProject } from '../../accounts/request-auth.ts';
import type { AppContext } from '../../http/context.ts';
import { jsonBodyParser, jsonFailure } from '../../http/json.ts';
import { errorResponses, ProjectParams } from '../../http/schemas.ts';
import { breakdownRoutes } from './breakdown-routes.ts';
import { collectRoutes } from './collect.ts';
import { limitReads } from './read-limit.ts';
import { parseRange } from './range.ts';
import { page } from '../query/query.ts';
import type { Measure } from '../query/types.ts';
import { RangeQuery, ViewsResult, VisitorsResult } from './schemas.ts';
import { eventsRoute } from './events-route.ts';
import { parseNdjsonText } from './events-body.ts';

const errors = errorResponses(['invalid_request', 'unauthorized', 'forbidden', 'not_found', 'payload_too_large', 'rate_limited']);
const tags = ['Visitor analytics'];

export const analyticsRoutes: FastifyPluginAsyncTypebox<{ context: AppContext }> = async (app, { context }) => {
  const { config } = context;
  const read = requireKey(context, 'read');

  // Ingestion bodies run to megabytes: plain JSON.parse skips the app parser's scans for prototype keys,
  // which matter where parsed objects are merged into others. Events are read field by field here and
  // any other key, "__proto__" included, is refused, so those scans would only cost time.
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, jsonBodyParser());
  app.addContentTypeParser('application/x-ndjson', { parseAs: 'string', bodyLimit: config.ingestBodyLimitBytes }, (_request, body, done) => {
    const parsed = parseNdjsonText(body.toString());
    if ('failure' in parsed) return done(jsonFailure(parsed.failure), undefined);
    done(null, parsed.value);
  });

  async function exportPage(
    measure: Measure,
    request: FastifyRequest<{ Params: { projectId: string }; Querystring: { dateFrom?: string; dateTo?: string; limit?: number; offset?: number } }>,
    reply: FastifyReply,
  ) {
    const project = await visibleProject(context, request, request.params.projectId);
    const range = parseRange(request.query);
    await limitReads(context, project, reply);
    return page(context.analytics, project.id, { measure, ...range, limit: request.query.limit ?? 50, offset: request.query.offset ?? 0 });
  }

  const rules =
    'Ordered by `total` descending, then `path` ascending. `dateFrom` inclusive, `dateTo` exclusive; a date-time bound inside a day is honoured to the millisecond. Shares the per-organization analytics limit.';
  app.get('/v1/analytics/:projectId/visitors', {
    onRequest: read,
    schema: {
      tags,
      summary: 'Get unique visitors',
      description: `Unique visitors per page and site-wide, human, AI and deduplicated total. ${rules}`,
      params: ProjectParams,
      querystring: RangeQuery,
      response: { 200: VisitorsResult, ...errors },
    },
    handler: async (request, reply) => {
      const result = await exportPage('visitors', request, reply);
      return { totals: result.totals, visitors: result.rows, hasMore: result.hasMore };
    },
  });
  app.get('/v1/analytics/:projectId/views', {
    onRequest: read,
    schema: {
      tags,
      summary: 'Get page views',
      description: `Page views per page and site-wide, human, AI and total. ${rules}`,
      params: ProjectParams,
      querystring: RangeQuery,
      response: { 200: ViewsResult, ...errors },
    },
    handler: async (request, reply) => {
      const result = await exportPage('views', request, reply);
      return { totals: result.totals, views: result.rows, hasMore: result.hasMore };
    },
  });

  await app.register(eventsRoute, { context });
  await app.register(collectRoutes, { context });
  await app.register(breakdownRoutes, { context });
};
