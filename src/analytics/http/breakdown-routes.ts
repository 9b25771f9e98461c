import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { requireKey, visibleProject } from '../../accounts/request-auth.ts';
import type { AppContext } from '../../http/context.ts';
import { invalidRequest } from '../../http/errors.ts';
import { errorResponses, ProjectParams } from '../../http/schemas.ts';
import { dayMs, dayOf } from '../model/days.ts';
import { breakdownPage, type AgentRow, type ReferrerRow } from '../query/breakdowns.ts';
import { dailySeries } from '../query/series.ts';
import { filteredAgents, filteredReferrers, filteredSeries } from '../query/dimensions.ts';
import { parseFilters } from './dimension-schemas.ts';
import { AgentsQuery, AgentsResult, ReferrersQuery, ReferrersResult, SeriesQuery, SeriesResult } from './breakdown-schemas.ts';
import { parseRange } from './range.ts';
import { limitReads } from './read-limit.ts';

const errors = errorResponses(['invalid_request', 'unauthorized', 'forbidden', 'not_found', 'rate_limited']);
const tags = ['Visitor analytics'];
/** The longest series: a year and a bit, so a year against the previous one fits. */
export const maxSeriesDays = 400;
const rules =
  '`dateFrom` inclusive, `dateTo` exclusive, as on `/visitors`; `limit` 1 to 250 (50), `offset` from 0. Shares the per-organization analytics limit.';

/** Agents, referrers and the daily series: read operations with the same keys, ranges and limit as `/visitors`. */
export const breakdownRoutes: FastifyPluginAsyncTypebox<{ context: AppContext }> = async (app, { context }) => {
  const read = requireKey(context, 'read');

  app.get('/v1/analytics/:projectId/agents', {
    onRequest: read,
    schema: {
      tags,
      summary: 'Get AI agents',
      description: `AI views and distinct visitors per agent, with verified and spoofed views, ordered by \`views\` descending then \`agent\` ascending. \`totals\` are over every AI view of the range (of \`category\` when given), spoofed ones excluded. ${rules}`,
      params: ProjectParams,
      querystring: AgentsQuery,
      response: { 200: AgentsResult, ...errors },
    },
    handler: async (request, reply) => {
      const project = await visibleProject(context, request, request.params.projectId);
      const range = parseRange(request.query);
      const filters = parseFilters(request.query.filter);
      await limitReads(context, project, reply);
      const { query } = request;
      if (filters.length > 0) {
        const filtered = await filteredAgents(context.analytics, project.id, {
          ...range,
          filters,
          category: query.category,
          limit: query.limit ?? 50,
          offset: query.offset ?? 0,
        });
        return { totals: filtered.totals, agents: filtered.rows, hasMore: filtered.hasMore };
      }
      const result = await breakdownPage<AgentRow>(
        context.analytics,
        project.id,
        { breakdown: 'agents', category: query.category },
        { ...range, limit: query.limit ?? 50, offset: query.offset ?? 0 },
      );
      return { totals: result.totals, agents: result.rows, hasMore: result.hasMore };
    },
  });

  app.get('/v1/analytics/:projectId/referrers', {
    onRequest: read,
    schema: {
      tags,
      summary: 'Get referring sites',
      description: `Human views sent by other sites, per host (\`www.\` dropped; a page's \`utm_source\` naming a site counts as that site; the project's tracker domains are its own site, not referrers), with the host's category. Ordered by \`views\` descending then \`referrer\` ascending. ${rules}`,
      params: ProjectParams,
      querystring: ReferrersQuery,
      response: { 200: ReferrersResult, ...errors },
    },
    handler: async (request, reply) => {
      const project = await visibleProject(context, request, request.params.projectId);
      const range = parseRange(request.query);
      const filters = parseFilters(request.query.filter);
      await limitReads(context, project, reply);
      if (filters.length > 0) {
        const filtered = await filteredReferrers(context.analytics, project.id, {
          ...range,
          filters,
          limit: request.query.limit ?? 50,
          offset: request.query.offset ?? 0,
        });
        return { totals: filtered.totals, referrers: filtered.rows, hasMore: filtered.hasMore };
      }
      const result = await breakdownPage<ReferrerRow>(
        context.analytics,
        project.id,
        { breakdown: 'referrers' },
        { ...range, limit: request.query.limit ?? 50, offset: request.query.offset ?? 0 },
      );
      return { totals: result.totals, referrers: result.rows, hasMore: result.hasMore };
    },
  });

  app.get('/v1/analytics/:projectId/series', {
    onRequest: read,
    schema: {
      tags,
      summary: 'Get a daily series',
      description: `Human, AI and total visitors (distinct within each day) or views per UTC day overlapping the range, oldest first, days without views included; at most ${maxSeriesDays} days. \`filter=property==value\` (repeatable) counts only matching views; \`compare=previous_period\` adds \`previous.series\` for the range of the same length just before. \`dateFrom\` inclusive, \`dateTo\` exclusive, as on \`/visitors\`. Shares the per-organization analytics limit.`,
      params: ProjectParams,
      querystring: SeriesQuery,
      response: { 200: SeriesResult, ...errors },
    },
    handler: async (request, reply) => {
      const project = await visibleProject(context, request, request.params.projectId);
      const { from, to } = parseRange(request.query);
      const filters = parseFilters(request.query.filter);
      const days = dayOf(to - 1) - dayOf(from) + 1;
      if (days > maxSeriesDays)
        throw invalidRequest(`The range covers ${days} days; a series covers at most ${maxSeriesDays}: narrow dateFrom or dateTo.`, [
          { path: '/dateFrom', message: `must be at most ${maxSeriesDays} days before dateTo` },
        ]);
      await limitReads(context, project, reply);
      const measure = request.query.measure ?? 'visitors';
      const count = (start: number, end: number) =>
        filters.length === 0
          ? dailySeries(context.analytics, project.id, measure, start, end)
          : filteredSeries(context.analytics, project.id, measure, { from: start, to: end, filters });
      const dated = (series: Awaited<ReturnType<typeof count>>) =>
        series.map(({ day, human, ai, total }) => ({ date: new Date(day * dayMs).toISOString().slice(0, 10), human, ai, total }));
      const series = dated(await count(from, to));
      if (request.query.compare !== 'previous_period') return { measure, interval: 'day' as const, series };
      return { measure, interval: 'day' as const, series, previous: { series: dated(await count(from - (to - from), from)) } };
    },
  });
};
