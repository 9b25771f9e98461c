import { readFileSync } from 'node:fs';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { findProject } from '../../accounts/projects.ts';
import { clientAddressResolver } from '../../server/client-address.ts';
import type { AppContext } from '../../server/context.ts';
import { ApiError, invalidRequest, notFound } from '../../server/errors.ts';
import { ingest } from '../ingest/ingest.ts';

const script = readFileSync(new URL('./tracker.js', import.meta.url), 'utf8');

const CollectBody = Type.Object(
  {
    project: Type.String({ minLength: 1, maxLength: 64 }),
    url: Type.String({ minLength: 1, maxLength: 2048, description: 'The page address (origin and path).' }),
    visitorId: Type.String({ minLength: 1, maxLength: 200 }),
    referrer: Type.Optional(Type.String({ maxLength: 2048 })),
  },
  { additionalProperties: false },
);

/** Whether `host` (with port when not default) is one of the project's tracker domains; `*.x` covers subdomains. */
export function allowedHost(domains: string, host: string): boolean {
  const name = host.toLowerCase();
  return domains
    .split(',')
    .map((domain) => domain.trim().toLowerCase())
    .filter(Boolean)
    .some((domain) => (domain.startsWith('*.') ? name.endsWith(domain.slice(1)) : name === domain));
}

/** The browser tracker: `GET /script.js` and the public endpoint it posts views to. */
export const collectRoutes: FastifyPluginAsyncTypebox<{ context: AppContext }> = async (app, { context }) => {
  const clientAddress = clientAddressResolver(context.config.trustedProxies);
  // sendBeacon posts text/plain so browsers send it without a preflight; the text is JSON.
  app.addContentTypeParser('text/plain', { parseAs: 'string' }, (_request, body, done) => {
    try {
      done(null, JSON.parse(body.toString()));
    } catch {
      done(invalidRequest('The body is not valid JSON.'), undefined);
    }
  });

  app.get('/script.js', { schema: { tags: ['Visitor analytics'], summary: 'Browser tracker script', security: [], hide: true } }, async (_request, reply) =>
    reply.type('text/javascript; charset=utf-8').header('cache-control', 'public, max-age=3600').send(script),
  );

  app.post('/v1/collect', {
    schema: {
      tags: ['Visitor analytics'],
      summary: 'Collect a page view from the browser tracker',
      description: 'Public: the page host must be one of the project’s tracker domains. Answers 204.',
      security: [],
      body: CollectBody,
    },
    handler: async (request, reply) => {
      const { body } = request;
      const project = await findProject(context.storage.db, body.project);
      if (!project) throw notFound(`Project ${body.project}`);
      let page: URL;
      try {
        page = new URL(body.url);
      } catch {
        throw invalidRequest('url must be the absolute address of the page.');
      }
      const origin = request.headers.origin;
      const originHost = origin && origin !== 'null' ? URL.parse(origin)?.host : undefined;
      if (!allowedHost(project.tracker_domains, page.host) || (originHost !== undefined && !allowedHost(project.tracker_domains, originHost))) {
        throw new ApiError('forbidden', `${page.host} is not a tracker domain of this project; add it with "quire projects update ${project.id} --tracker-domains ${page.host}".`);
      }
      const result = await ingest(context.analytics, project, [
        { path: page.pathname, visitorId: body.visitorId, userAgent: request.headers['user-agent'], ip: clientAddress(request), referrer: body.referrer, accept: request.headers.accept },
      ]);
      if (result.rejected > 0) throw invalidRequest(result.errors[0].message);
      return reply.code(204).send();
    },
  });
};
