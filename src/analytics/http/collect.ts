import { readFileSync } from 'node:fs';
import { BlockList, isIP } from 'node:net';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { findProject } from '../../accounts/projects.ts';
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

function trustedList(entries: string[]): BlockList {
  const list = new BlockList();
  for (const entry of entries) {
    const [address, bits] = entry.split('/');
    const type = isIP(address) === 6 ? 'ipv6' : 'ipv4';
    if (bits === undefined) list.addAddress(address, type);
    else list.addSubnet(address, Number(bits), type);
  }
  return list;
}

function trusted(list: BlockList, address: string): boolean {
  const plain = address.replace(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/, '$1');
  return isIP(plain) !== 0 && list.check(plain, isIP(plain) === 6 ? 'ipv6' : 'ipv4');
}

/** The client's address: the socket's, or behind trusted proxies the nearest untrusted `X-Forwarded-For` hop. */
export function clientAddress(request: Pick<FastifyRequest, 'socket' | 'headers'>, proxies: BlockList): string | undefined {
  let address = request.socket.remoteAddress;
  if (address === undefined || !trusted(proxies, address)) return address;
  const header = request.headers['x-forwarded-for'];
  const hops = (Array.isArray(header) ? header.join(',') : (header ?? '')).split(',').map((hop) => hop.trim()).filter(Boolean);
  while (hops.length > 0) {
    address = hops.pop()!;
    if (!trusted(proxies, address)) break;
  }
  return address && isIP(address.replace(/^::ffff:/, '')) ? address.replace(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/, '$1') : undefined;
}

/** The browser tracker: `GET /script.js` and the public endpoint it posts views to. */
export const collectRoutes: FastifyPluginAsyncTypebox<{ context: AppContext }> = async (app, { context }) => {
  const proxies = trustedList(context.config.trustedProxies);
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
        { path: page.pathname, visitorId: body.visitorId, userAgent: request.headers['user-agent'], ip: clientAddress(request, proxies), referrer: body.referrer, accept: request.headers.accept },
      ]);
      if (result.rejected > 0) throw invalidRequest(result.errors[0].message);
      return reply.code(204).send();
    },
  });
};
