import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { requireKey, visibleProject } from '../../accounts/request-auth.ts';
import type { AppContext } from '../../http/context.ts';
import { invalidRequest, notFound } from '../../http/errors.ts';
import { errorResponses, ProjectParams } from '../../http/schemas.ts';
import { existingProjectKey } from '../ingest/dense-ids.ts';
import { parseRange } from './range.ts';
import { limitReads } from './read-limit.ts';
import { decodeCursor, encodeCursor } from '../feedback/cursor.ts';
import { feedbackByPage, feedbackList, itemOf } from '../feedback/feedback-query.ts';
import { codeList, feedbackSources, feedbackStatuses, statusCode } from '../feedback/kinds.ts';
import {
  ByPageQuery,
  ByPageResult,
  FeedbackItem,
  FeedbackParams,
  FeedbackQuery,
  FeedbackResult,
  SearchesQuery,
  SearchesResult,
  StatusBody,
} from './feedback-schemas.ts';
import { searchesPage } from '../feedback/search-query.ts';
import { changeStatus } from '../feedback/status.ts';

const errors = errorResponses(['invalid_request', 'unauthorized', 'forbidden', 'not_found', 'rate_limited']);
const tags = ['Feedback and searches'];
const rules = '`dateFrom` inclusive, `dateTo` exclusive, as on `/visitors` (default: the last 7 days). Shares the per-organization analytics limit.';

/** A query parameter's problem as the API's 400. */
function parameter<T>(parse: () => T, path: string): T {
  try {
    return parse();
  } catch (error) {
    throw invalidRequest(`The querystring is invalid: ${(error as Error).message}`, [{ path, message: (error as Error).message }]);
  }
}

function filters(query: { source?: string; status?: string }) {
  return {
    sources: parameter(() => codeList(query.source, feedbackSources, 'source'), '/source'),
    statuses: parameter(() => codeList(query.status, feedbackStatuses, 'status'), '/status'),
  };
}

/** Docs feedback and search exports, and feedback triage: same keys, scopes, ranges and limit as `/visitors`. */
export const feedbackRoutes: FastifyPluginAsyncTypebox<{ context: AppContext }> = async (app, { context }) => {
  const read = requireKey(context, 'read');
  const projectKeyOf = (projectId: string) => existingProjectKey(context.storage.db, context.analytics.ids, projectId);

  app.get('/v1/analytics/:projectId/feedback', {
    onRequest: read,
    schema: {
      tags,
      summary: 'Get feedback',
      description: `Feedback items, newest first (then by id). Filter by \`source\` and \`status\` (comma lists). Cursor-paged. ${rules}`,
      params: ProjectParams,
      querystring: FeedbackQuery,
      response: { 200: FeedbackResult, ...errors },
    },
    handler: async (request, reply) => {
      const project = await visibleProject(context, request, request.params.projectId);
      const range = parseRange(request.query);
      const filter = { ...range, ...filters(request.query) };
      const cursor = parameter(() => decodeCursor(request.query.cursor), '/cursor');
      await limitReads(context, project, reply);
      const key = await projectKeyOf(project.id);
      if (key === undefined) return { feedback: [], nextCursor: null, hasMore: false };
      const { items, hasMore } = await feedbackList(context.storage, key, filter, request.query.limit ?? 50, cursor);
      const last = items.at(-1);
      return { feedback: items.map(itemOf), nextCursor: hasMore && last ? encodeCursor([Number(last.at), last.id]) : null, hasMore };
    },
  });

  app.get('/v1/analytics/:projectId/feedback/by-page', {
    onRequest: read,
    schema: {
      tags,
      summary: 'Get feedback per page',
      description: `Thumbs up, thumbs down, code-snippet feedback and all feedback per page, ordered by \`total\` descending, then \`path\` by code point. Filter by \`source\` and \`status\` (comma lists). ${rules}`,
      params: ProjectParams,
      querystring: ByPageQuery,
      response: { 200: ByPageResult, ...errors },
    },
    handler: async (request, reply) => {
      const project = await visibleProject(context, request, request.params.projectId);
      const filter = { ...parseRange(request.query), ...filters(request.query) };
      await limitReads(context, project, reply);
      const key = await projectKeyOf(project.id);
      if (key === undefined) return { feedback: [], hasMore: false };
      const { pages, hasMore } = await feedbackByPage(context.storage, key, filter, request.query.limit ?? 10, request.query.offset ?? 0);
      return { feedback: pages, hasMore };
    },
  });

  app.patch('/v1/analytics/:projectId/feedback/:id', {
    onRequest: requireKey(context, 'write'),
    schema: {
      tags,
      summary: 'Change a feedback item’s status',
      description: 'Sets the triage status (`pending`, `in_progress`, `resolved`, `dismissed`); answers the item.',
      params: FeedbackParams,
      body: StatusBody,
      response: { 200: FeedbackItem, ...errors },
    },
    handler: async (request) => {
      const project = await visibleProject(context, request, request.params.projectId);
      const key = await projectKeyOf(project.id);
      const row = key === undefined ? undefined : await changeStatus(context.storage, key, request.params.id, statusCode(request.body.status));
      if (!row) throw notFound(`Feedback ${request.params.id}`);
      return itemOf(row);
    },
  });

  app.get('/v1/analytics/:projectId/searches', {
    onRequest: read,
    schema: {
      tags,
      summary: 'Get searches',
      description: `Per distinct normalized query: searches, hits of its latest search, click-through rate, most clicked page and latest search; ordered by searches descending, then query by code point. Cursor-paged. ${rules}`,
      params: ProjectParams,
      querystring: SearchesQuery,
      response: { 200: SearchesResult, ...errors },
    },
    handler: async (request, reply) => {
      const project = await visibleProject(context, request, request.params.projectId);
      const range = parseRange(request.query);
      const cursor = parameter(() => decodeCursor(request.query.cursor), '/cursor');
      await limitReads(context, project, reply);
      const key = await projectKeyOf(project.id);
      if (key === undefined) return { searches: [], totalSearches: 0, nextCursor: null };
      const page = await searchesPage(context.storage, key, { ...range, limit: request.query.limit ?? 50, cursor });
      return {
        searches: page.searches.map(({ searchQuery, searches, hits, ctr, topClickedPage, lastSearchedAt }) => ({
          searchQuery,
          searches,
          hits,
          ctr,
          topClickedPage,
          lastSearchedAt,
        })),
        totalSearches: page.totalSearches,
        nextCursor: page.next ? encodeCursor(page.next) : null,
      };
    },
  });

  // Tables analyzed after quick writes (../feedback/interactions.ts) are done before the database closes.
  app.addHook('onClose', async () => context.analytics.statistics.settled());
};
