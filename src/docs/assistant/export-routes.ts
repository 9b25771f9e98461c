import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { requireKey, visibleProject } from '../../accounts/request-auth.ts';
import { parseRange } from '../../analytics/http/range.ts';
import { limitReads } from '../../analytics/http/read-limit.ts';
import type { AppContext } from '../../http/context.ts';
import { notFound } from '../../http/errors.ts';
import { errorResponses, ProjectParams } from '../../http/schemas.ts';
import { siteOf } from '../surface/site.ts';
import { callerCounts, conversationPage, threadWithTurns } from './export-queries.ts';
import { CallerStatsResult, ConversationsQuery, ConversationsResult, RangeOnlyQuery, ThreadParams, ThreadResult } from './export-schemas.ts';

const errors = errorResponses(['invalid_request', 'unauthorized', 'forbidden', 'not_found', 'rate_limited']);
const tags = ['Assistant analytics'];
const iso = (at: number) => new Date(at).toISOString();
const rules = 'Admin key with `read`; shares the per-organization analytics limit. `dateFrom` inclusive, `dateTo` exclusive, as for `visitors`.';

/** Mintlify's three assistant exports, read from the assistant's own tables. Failed turns are never stored, so never listed. */
export const exportRoutes: FastifyPluginAsyncTypebox<{ context: AppContext }> = async (app, { context }) => {
  const read = requireKey(context, 'read');
  const { storage } = context;

  app.get('/v1/analytics/:projectId/assistant', {
    onRequest: read,
    schema: {
      tags,
      summary: 'Get assistant conversations',
      description: `One row per answered, unanswered or clarifying turn, newest first. ${rules}`,
      params: ProjectParams,
      querystring: ConversationsQuery,
      response: { 200: ConversationsResult, ...errors },
    },
    handler: async (request, reply) => {
      const project = await visibleProject(context, request, request.params.projectId);
      const range = parseRange(request.query);
      await limitReads(context, project, reply);
      const page = await conversationPage(storage, { projectId: project.id, ...range, limit: request.query.limit ?? 100, cursor: request.query.cursor });
      const { siteUrl } = siteOf(project, context.config);
      const conversations = page.rows.map((row) => ({
        id: row.thread_id,
        timestamp: iso(row.created_at),
        query: row.query,
        response: row.response,
        responseType: row.response_type as 'answer' | 'clarifying_question',
        sources: (JSON.parse(row.sources) as { title: string; url: string }[]).map(({ title, url }) => ({ title, url })),
        resolutionStatus: row.resolution as 'answered' | 'unanswered',
        queryCategory: row.query_category,
        pageUrl: row.current_path === null ? null : `${siteUrl}${row.current_path.startsWith('/') ? '' : '/'}${row.current_path}`,
      }));
      return { conversations, nextCursor: page.nextCursor, hasMore: page.hasMore };
    },
  });

  app.get('/v1/analytics/:projectId/assistant/threads/:threadId', {
    onRequest: read,
    schema: {
      tags,
      summary: 'Get an assistant conversation thread',
      description: 'The thread’s questions and answers, oldest first. 404 when the project has no such thread. Shares the per-organization analytics limit.',
      params: ThreadParams,
      response: { 200: ThreadResult, ...errors },
    },
    handler: async (request, reply) => {
      const project = await visibleProject(context, request, request.params.projectId);
      await limitReads(context, project, reply);
      const found = await threadWithTurns(storage, project.id, request.params.threadId);
      if (!found) throw notFound(`Assistant thread ${request.params.threadId} of project ${project.id}`);
      const messages = found.turns.flatMap((turn) => [
        { id: `${turn.id}:user`, role: 'user' as const, content: turn.query, createdAt: iso(turn.created_at) },
        { id: `${turn.id}:assistant`, role: 'assistant' as const, content: turn.response, createdAt: iso(turn.created_at) },
      ]);
      return { threadId: found.thread.id, createdAt: iso(found.thread.created_at), messages };
    },
  });

  app.get('/v1/analytics/:projectId/assistant/caller-stats', {
    onRequest: read,
    schema: {
      tags,
      summary: 'Get assistant caller stats',
      description: `Assistant questions in the range by caller: \`web\` (the embeddable script), \`api\`, \`other\` (integrations). ${rules}`,
      params: ProjectParams,
      querystring: RangeOnlyQuery,
      response: { 200: CallerStatsResult, ...errors },
    },
    handler: async (request, reply) => {
      const project = await visibleProject(context, request, request.params.projectId);
      const range = parseRange(request.query);
      await limitReads(context, project, reply);
      return callerCounts(storage, project.id, range.from, range.to);
    },
  });
};
