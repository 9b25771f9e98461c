import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { requireKey, visibleProject } from '../../accounts/request-auth.ts';
import type { AppContext } from '../../http/context.ts';
import { jsonBodyParser, jsonFailure } from '../../http/json.ts';
import { errorResponses, ProjectParams } from '../../http/schemas.ts';
import { breakdownRoutes } from './breakdown-routes.ts';
import { dimensionRoutes } from './dimension-routes.ts';
import { sharedLinkRoutes } from './shared-link-routes.ts';
import { collectRoutes } from './collect.ts';
import { limitReads } from './read-limit.ts';
import { parseRange } from './range.ts';
import { page, pathPage, totals } from '../query/query.ts';
import { filteredPage, filteredTotals } from '../query/dimensions.ts';
import { parseFilters } from './dimension-schemas.ts';
import type { Measure } from '../query/types.ts';
import { ExportQuery, ViewsResult, VisitorsResult } from './schemas.ts';
import { eventsRoute } from './events-route.ts';
import { parseNdjsonBytes } from './events-body.ts';

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
  app.addContentTypeParser('application/x-ndjson', { parseAs: 'buffer', bodyLimit: config.ingestBodyLimitBytes }, (_request, body, done) => {
    const parsed = parseNdjsonBytes(typeof body === 'string' ? Buffer.from(body) : body);
    if ('failure' in parsed) return done(jsonFailure(parsed.failure), undefined);
    done(null, parsed.value);
  });

  async function exportPage(
    measure: Measure,
    request: FastifyRequest<{
      Params: { projectId: string };
      Querystring: { dateFrom?: string; dateTo?: string; limit?: number; offset?: number; filter?: string | string[]; compare?: 'previous_period' };
    }>,
    reply: FastifyReply,
  ) {
    const project = await visibleProject(context, request, request.params.projectId);
    const range = parseRange(request.query);
    const filters = parseFilters(request.query.filter);
    await limitReads(context, project, reply);
    const paging = { limit: request.query.limit ?? 50, offset: request.query.offset ?? 0 };
    // Unfiltered, the day sets and range index answer, and filtered by one page, that page's row of them; other
    // filters need each view's dimensions, kept on the raw events.
    const path = filters.length > 0 && filters.every((filter) => filter.property === 'path' && filter.value === filters[0].value) ? filters[0].value : null;
    const answer = (window: { from: number; to: number }, pageOf: { limit: number; offset: number }) =>
      filters.length === 0
        ? page(context.analytics, project.id, { measure, ...window, ...pageOf })
        : path !== null
          ? pathPage(context.analytics, project.id, { measure, ...window, ...pageOf, path })
          : null;
    const result = (await answer(range, paging)) ?? (await filteredPage(context.analytics, project.id, measure, { ...range, filters, ...paging }));
    if (request.query.compare !== 'previous_period') return result;
    const previousRange = { from: range.from - (range.to - range.from), to: range.from };
    // Only the previous period's totals are shown: unfiltered, they need no per-page counts.
    const previous =
      filters.length === 0
        ? await totals(context.analytics, project.id, measure, previousRange.from, previousRange.to)
        : ((await answer(previousRange, { limit: 1, offset: 0 }))?.totals ??
          (await filteredTotals(context.analytics, project.id, measure, { ...previousRange, filters })));
    return { ...result, previous: { totals: previous } };
  }

  const rules =
    'Ordered by `total` descending, then `path` ascending. `filter=property==value` (repeatable) counts only the views that match every filter; `compare=previous_period` adds the totals of the range of the same length just before. `dateFrom` inclusive, `dateTo` exclusive; a date-time bound inside a day is honoured to the millisecond. Shares the per-organization analytics limit.';
  app.get('/v1/analytics/:projectId/visitors', {
    onRequest: read,
    schema: {
      tags,
      summary: 'Get unique visitors',
      description: `Unique visitors per page and site-wide, human, AI and deduplicated total. ${rules}`,
      params: ProjectParams,
      querystring: ExportQuery,
      response: { 200: VisitorsResult, ...errors },
    },
    handler: async (request, reply) => {
      const result = await exportPage('visitors', request, reply);
      return { totals: result.totals, visitors: result.rows, hasMore: result.hasMore, ...('previous' in result ? { previous: result.previous } : {}) };
    },
  });
  app.get('/v1/analytics/:projectId/views', {
    onRequest: read,
    schema: {
      tags,
      summary: 'Get page views',
      description: `Page views per page and site-wide, human, AI and total. ${rules}`,
      params: ProjectParams,
      querystring: ExportQuery,
      response: { 200: ViewsResult, ...errors },
    },
    handler: async (request, reply) => {
      const result = await exportPage('views', request, reply);
      return { totals: result.totals, views: result.rows, hasMore: result.hasMore, ...('previous' in result ? { previous: result.previous } : {}) };
    },
  });

  await app.register(eventsRoute, { context });
  await app.register(collectRoutes, { context });
  await app.register(breakdownRoutes, { context });
  await app.register(dimensionRoutes, { context });
  await app.register(sharedLinkRoutes, { context });
};
