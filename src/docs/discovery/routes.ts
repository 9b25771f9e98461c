import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { flushInteractions } from '../../analytics/capture/record.ts';
import type { AppContext } from '../../http/context.ts';
import type { ProjectRow } from '../../storage/tables/accounts.ts';
import { ApiError } from '../../http/errors.ts';
import { errorResponses } from '../../http/schemas.ts';
import { getPage } from '../index/pages.ts';
import { searchDocsShared, type SearchHit } from '../search/search.ts';
import { docsAuthorizer } from '../surface/access.ts';
import { docsCounter } from '../surface/count.ts';
import { docsLimits } from '../surface/limits.ts';
import { siteOf } from '../surface/site.ts';
import { pageUrl, viewPath } from '../surface/site-files.ts';
import { DomainParams, PageBody, PageResult, SearchBody, SearchResult } from './schemas.ts';

const errors = errorResponses(['invalid_request', 'unauthorized', 'forbidden', 'not_found', 'payload_too_large', 'rate_limited']);
const tags = ['Discovery'];
// eslint-disable-next-line no-control-regex -- finding control characters (NUL above all, which PostgreSQL refuses in text) is the point
const controlCharacters = /[\u0000-\u001f\u007f]/g;
// eslint-disable-next-line no-control-regex -- finding control characters (NUL above all, which PostgreSQL refuses in text) is the point
const controlCharacter = /[\u0000-\u001f\u007f]/;

/** Browsers call these from docs pages: any origin may ask, and an assistant key's origins are checked on the request itself. */
function allowOrigin(request: FastifyRequest, reply: FastifyReply): void {
  const origin = request.headers.origin;
  if (origin !== undefined) reply.header('access-control-allow-origin', origin).header('vary', 'origin');
}

/** The routes a path may name: as given (a route or a file path), else as a route when it lacks the leading slash. */
function candidates(path: string): string[] {
  const trimmed = path.length > 1 ? path.replace(/\/+$/, '') : path;
  return trimmed.startsWith('/') ? [trimmed] : [trimmed, `/${trimmed}`];
}

/** Mintlify's discovery search and page under `/discovery`, over the project's docs index. */
export const discoveryRoutes: FastifyPluginAsyncTypebox<{ context: AppContext }> = async (app, { context }) => {
  const authorize = docsAuthorizer(context);
  const counter = docsCounter(context);
  const limits = docsLimits(context);
  // Searches and feedback are buffered (analytics/capture/interaction-buffer.ts): stored before the database closes.
  app.addHook('onClose', () => flushInteractions(context.analytics));
  // Access is decided before the body is validated, so another organization's project is 404 whatever the body says.
  const projects = new WeakMap<FastifyRequest, ProjectRow>();
  /**
   * The JSON of each search answer the process keeps (searchDocsShared), already UTF-8: a repeated
   * search of fifty sections is hundreds of kilobytes, whose serializing and encoding cost more than
   * everything else the request does. Kept as long as the answer is, and only for the site URL it
   * was made with.
   */
  const bodies = new WeakMap<readonly SearchHit[], { siteUrl: string; body: Buffer }>();
  const preValidation = async (request: FastifyRequest) => {
    projects.set(request, await authorize(request, (request.params as { domain: string }).domain));
  };

  for (const operation of ['search', 'page']) {
    app.options(`/discovery/v1/${operation}/:domain`, { schema: { hide: true } }, async (request, reply) => {
      allowOrigin(request, reply);
      return reply
        .code(204)
        .header('access-control-allow-methods', 'POST, OPTIONS')
        .header('access-control-allow-headers', 'authorization, content-type')
        .header('access-control-max-age', '86400')
        .send();
    });
  }

  app.post('/discovery/v1/search/:domain', {
    preValidation,
    schema: { tags, summary: 'Search the docs', params: DomainParams, body: SearchBody, response: { 200: SearchResult, ...errors } },
    handler: async (request, reply) => {
      allowOrigin(request, reply);
      const project = projects.get(request)!;
      await limits.discovery(project, reply);
      const { query, pageSize, scoreThreshold, filter } = request.body;
      const cleaned = query.replace(controlCharacters, ' ');
      const hits = await searchDocsShared(context.storage, project.id, cleaned, { limit: pageSize, scoreThreshold, groups: filter?.groups });
      counter.search(request, project, cleaned, hits.length);
      const { siteUrl } = siteOf(project, context.config);
      let sent = bodies.get(hits);
      if (sent?.siteUrl !== siteUrl) {
        const results = hits.map((hit) => ({
          content: hit.markdown,
          path: hit.route,
          metadata: {
            title: hit.anchor ? `${hit.title}: ${hit.heading}` : hit.title,
            url: pageUrl(siteUrl, hit.route, hit.anchor),
            anchor: hit.anchor,
            score: hit.score,
          },
        }));
        sent = { siteUrl, body: Buffer.from(reply.serialize(results) as string) };
        bodies.set(hits, sent);
      }
      // A Buffer goes out as it is: the typed reply only knows the schema's shape, which the body already has.
      return reply.type('application/json; charset=utf-8').send(sent.body as never);
    },
  });

  app.post('/discovery/v1/page/:domain', {
    preValidation,
    schema: { tags, summary: 'Read a page', params: DomainParams, body: PageBody, response: { 200: PageResult, ...errors } },
    handler: async (request, reply) => {
      allowOrigin(request, reply);
      const project = projects.get(request)!;
      await limits.discovery(project, reply);
      const { path } = request.body;
      // Pages are looked up in the index only, never on a file system; text no page has finds nothing.
      for (const candidate of controlCharacter.test(path) ? [] : candidates(path)) {
        const page = await getPage(context.storage, project.id, candidate);
        if (!page) continue;
        counter.view(request, project, { path: viewPath(page.route), method: 'GET' });
        return { path: page.route, content: page.markdown };
      }
      throw new ApiError(
        'not_found',
        `This project's docs have no page at ${JSON.stringify(path.slice(0, 200))}: give a route such as /guides/setup or a file path.`,
      );
    },
  });
};
