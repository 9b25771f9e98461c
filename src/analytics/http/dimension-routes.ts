import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { requireKey, visibleProject } from '../../accounts/request-auth.ts';
import type { AppContext } from '../../http/context.ts';
import { errorResponses, ProjectParams } from '../../http/schemas.ts';
import { breakdownProperties, dimensionBreakdown, realtime } from '../query/dimensions.ts';
import { invalidRequest } from '../../http/errors.ts';
import { BreakdownQuery, BreakdownResult, parseFilters, RealtimeResult } from './dimension-schemas.ts';
import { parseRange } from './range.ts';
import { limitReads } from './read-limit.ts';

const errors = errorResponses(['invalid_request', 'unauthorized', 'forbidden', 'not_found', 'rate_limited']);
const tags = ['Visitor analytics'];

/** Breakdowns by the dimensions given at ingestion, and who is on the site now. */
export const dimensionRoutes: FastifyPluginAsyncTypebox<{ context: AppContext }> = async (app, { context }) => {
  const read = requireKey(context, 'read');

  app.get('/v1/analytics/:projectId/breakdown', {
    onRequest: read,
    schema: {
      tags,
      summary: 'Break views down by a dimension',
      description:
        'Distinct visitors and views per country (ISO 3166-1 alpha-2, from the client address), browser, OS, device (`desktop`, `mobile`, `tablet`; `bot` for every AI view), source (the referring site of a visit’s first view, or `Direct / None`) or entry page (the first page of a visit; `views` counts entrances). Ordered by `visitors` descending then `value`. `filter=property==value` (repeatable) counts only matching views. `dateFrom` inclusive, `dateTo` exclusive, as on `/visitors`; `limit` 1 to 250 (50), `offset` from 0. Shares the per-organization analytics limit.',
      params: ProjectParams,
      querystring: BreakdownQuery,
      response: { 200: BreakdownResult, ...errors },
    },
    handler: async (request, reply) => {
      const project = await visibleProject(context, request, request.params.projectId);
      const { query } = request;
      if (query.property === undefined)
        throw invalidRequest(`Give property: one of ${breakdownProperties.join(', ')} (e.g. property=country).`, [
          { path: '/property', message: 'is required' },
        ]);
      const range = parseRange(query);
      const filters = parseFilters(query.filter);
      await limitReads(context, project, reply);
      return dimensionBreakdown(context.analytics, project.id, {
        ...range,
        filters,
        property: query.property,
        viewClass: query.class ?? 'all',
        limit: query.limit ?? 50,
        offset: query.offset ?? 0,
      });
    },
  });

  app.get('/v1/analytics/:projectId/realtime', {
    onRequest: read,
    schema: {
      tags,
      summary: 'Get who is on the site now',
      description:
        'Distinct human, AI and total visitors of the last five minutes, and the pages they viewed; views count here as soon as their ingestion is acknowledged. Shares the per-organization analytics limit.',
      params: ProjectParams,
      // No parameters: an unknown one is a 400, as on every other analytics read.
      querystring: Type.Object({}, { additionalProperties: false }),
      response: { 200: RealtimeResult, ...errors },
    },
    handler: async (request, reply) => {
      const project = await visibleProject(context, request, request.params.projectId);
      await limitReads(context, project, reply);
      return realtime(context.analytics, project.id);
    },
  });
};
