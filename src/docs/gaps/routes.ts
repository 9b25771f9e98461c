import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { requireKey, visibleProject } from '../../accounts/request-auth.ts';
import { parseRange } from '../../analytics/http/range.ts';
import { limitReads } from '../../analytics/http/read-limit.ts';
import type { AppContext } from '../../http/context.ts';
import { invalidRequest } from '../../http/errors.ts';
import { errorResponses, ProjectParams } from '../../http/schemas.ts';
import { Job } from '../../jobs/schemas.ts';
import { jobView } from '../../jobs/view.ts';
import { Gap, GapList, GapParams, GapsQuery, GapStatusBody, RangeOnlyQuery } from './schemas.ts';
import { changeGapStatus, createGapJob, listGaps } from './service.ts';
import { gapStatuses, type GapStatus } from './store.ts';

const tags = ['Docs gaps'];
const errors = errorResponses(['invalid_request', 'unauthorized', 'forbidden', 'not_found', 'rate_limited']);
const writeErrors = errorResponses(['invalid_request', 'unauthorized', 'forbidden', 'not_found', 'conflict', 'rate_limited', 'project_not_configured']);
const rangeRules = '`dateFrom` inclusive, `dateTo` exclusive, as on `/visitors` (default: the last 7 days).';

function statusList(value: string | undefined): GapStatus[] | null {
  if (value === undefined) return null;
  const statuses = value.split(',').map((status) => status.trim());
  const unknown = statuses.find((status) => !gapStatuses.includes(status as GapStatus));
  if (unknown !== undefined) {
    const message = `status must be a comma list of ${gapStatuses.join(', ')}; "${unknown}" is not one.`;
    throw invalidRequest(`The querystring is invalid: ${message}`, [{ path: '/status', message }]);
  }
  return statuses as GapStatus[];
}

/** Docs gaps: what readers and agents fail to find, grouped and ranked, and the jobs that close them. */
export const gapRoutes: FastifyPluginAsyncTypebox<{ context: AppContext }> = async (app, { context }) => {
  const read = requireKey(context, 'read');
  const write = requireKey(context, 'write');

  app.get('/v1/analytics/:projectId/gaps', {
    onRequest: read,
    schema: {
      tags,
      summary: 'List docs gaps',
      description: `Unanswered assistant questions, searches with no results, "not helpful" feedback and 404s, grouped into gaps by what was asked (normalized, stemmed text) and by page; ordered by \`visitors.total\` descending, then \`id\`. ${rangeRules} Shares the per-organization analytics limit.`,
      params: ProjectParams,
      querystring: GapsQuery,
      response: { 200: GapList, ...errors },
    },
    handler: async (request, reply) => {
      const project = await visibleProject(context, request, request.params.projectId);
      const range = parseRange(request.query);
      const statuses = statusList(request.query.status);
      await limitReads(context, project, reply);
      return listGaps(context, project, { range, statuses, limit: request.query.limit ?? 20, offset: request.query.offset ?? 0 });
    },
  });

  app.post('/v1/analytics/:projectId/gaps/:gapId/job', {
    onRequest: write,
    schema: {
      tags,
      summary: 'Create an agent job from a gap',
      description: `Creates the agent job whose prompt quotes the gap's examples, counts and pages and asks for the smallest change that answers them; the gap becomes \`in_progress\`. The evidence is read over the range (${rangeRules}). Shares the per-project job limit.`,
      params: GapParams,
      querystring: RangeOnlyQuery,
      response: { 201: Job, ...writeErrors },
    },
    handler: async (request, reply) => {
      const project = await visibleProject(context, request, request.params.projectId);
      const job = await createGapJob(context, project, request.params.gapId, parseRange(request.query));
      return reply.code(201).send(jobView(job));
    },
  });

  app.patch('/v1/analytics/:projectId/gaps/:gapId', {
    onRequest: write,
    schema: {
      tags,
      summary: 'Dismiss or reopen a gap',
      description: `\`dismissed\` hides the gap from the default list until its evidence doubles; \`open\` shows it again. Answers the gap over the range (${rangeRules}).`,
      params: GapParams,
      querystring: RangeOnlyQuery,
      body: GapStatusBody,
      response: { 200: Gap, ...writeErrors },
    },
    handler: async (request) => {
      const project = await visibleProject(context, request, request.params.projectId);
      return changeGapStatus(context, project, request.params.gapId, request.body.status, parseRange(request.query));
    },
  });
};
