import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { findProject } from '../../accounts/projects.ts';
import type { ProjectRow } from '../../storage/tables/accounts.ts';
import { clientAddressResolver, clientNetwork } from '../../http/client-address.ts';
import type { AppContext } from '../../http/context.ts';
import { ApiError, invalidRequest, notFound } from '../../http/errors.ts';
import { jsonBodyParser } from '../../http/json.ts';
import { matchesEtag, preferredCoding, type ContentCoding } from '../../lib/accept.ts';
import { rateLimited, rateLimitHeaders, takeRateLimit, type RateLimitState } from '../../http/rate-limit.ts';
import { storeVerified } from '../ingest/ingest.ts';
import { reportIngested } from '../ingest/ingested.ts';
import { allowedHost } from '../ingest/referrers.ts';
import { prepareEvent } from '../ingest/validate.ts';
import type { PreparedEvent } from '../model/prepared-event.ts';
import { prepareCollectedInteraction, storeCollectedInteraction } from '../feedback/collect.ts';

const script = readFileSync(new URL('./tracker.js', import.meta.url));
/** The tracker as sent: compressed once at start (a few kilobytes), each copy with its own strong ETag. */
const scriptCopies = new Map<ContentCoding | null, { body: Buffer; etag: string }>(
  [
    [null, script],
    ['br', brotliCompressSync(script)],
    ['gzip', gzipSync(script, { level: 9 })],
  ].map(([coding, body]) => [
    coding as ContentCoding | null,
    {
      body: body as Buffer,
      etag: `"${createHash('sha256')
        .update(body as Buffer)
        .digest('base64url')
        .slice(0, 16)}"`,
    },
  ]),
);

/**
 * A beacon is one small JSON object: a view's longest fields are two 2 KB addresses, a feedback's a
 * 10,000-character code snippet and a 2,000-character comment (feedback/kinds.ts); anything larger is not one.
 */
const collectBodyLimitBytes = 32_768;

const CollectBody = Type.Object(
  {
    project: Type.String({ minLength: 1, maxLength: 64 }),
    url: Type.String({
      minLength: 1,
      maxLength: 2048,
      description: 'The page address (origin and path, and the `utm_source` parameter when the page has one).',
    }),
    visitorId: Type.String({ minLength: 1, maxLength: 200 }),
    referrer: Type.Optional(Type.String({ maxLength: 2048 })),
    kind: Type.Optional(Type.Union([Type.Literal('feedback'), Type.Literal('search')], { description: 'Absent for a page view.' })),
    data: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), {
        description: 'The fields of a feedback or search event (docs/analytics.md); a feedback’s path defaults to the page’s.',
      }),
    ),
  },
  { additionalProperties: false },
);

/**
 * Takes one view from the client's per-minute budget and then from the project's, in the database so
 * the limits hold across processes. A refused view counts against neither (the transaction rolls back).
 * Returns the tighter of the two states, for the RateLimit headers.
 */
async function takeCollectLimits(context: AppContext, projectId: string, address: string | undefined): Promise<RateLimitState> {
  const { config, storage } = context;
  const minute = 60_000;
  return storage.db.transaction().execute(async (trx) => {
    const client = await takeRateLimit(trx, storage.profile, `collect-address:${clientNetwork(address)}`, {
      limit: config.collectRateLimitPerAddress,
      windowMs: minute,
    });
    if (!client.allowed)
      throw rateLimited(client, `This address has sent ${client.limit} page views in the last minute (QUIRE_COLLECT_RATE_LIMIT_PER_ADDRESS).`);
    const project = await takeRateLimit(trx, storage.profile, `collect-project:${projectId}`, { limit: config.collectRateLimitPerProject, windowMs: minute });
    if (!project.allowed)
      throw rateLimited(
        project,
        `This project has received ${project.limit} page views from its tracker in the last minute (QUIRE_COLLECT_RATE_LIMIT_PER_PROJECT).`,
      );
    return client.remaining <= project.remaining ? client : project;
  });
}

/** Checks a view as ingestion would; throws a 400 that says what to fix. */
function prepareView(context: AppContext, event: Record<string, unknown>): PreparedEvent {
  try {
    return prepareEvent(event, Date.now());
  } catch (error) {
    reportIngested(context, 'tracker', 0, 1);
    throw invalidRequest((error as Error).message);
  }
}

/**
 * The refusal of a host that is not a tracker domain, with the command that adds it. `--tracker-domains`
 * replaces the list, so the command asks for the current domains too, without naming them: the refusal
 * goes to whoever sends the request, and a project's list may hold hosts it does not publish (staging).
 */
function notTrackerDomain(project: Pick<ProjectRow, 'id' | 'tracker_domains'>, host: string): string {
  if (project.tracker_domains.split(',').filter(Boolean).length === 0) {
    return `${host} is not a tracker domain of this project; add it with "quire projects update ${project.id} --tracker-domains ${host}".`;
  }
  return (
    `${host} is not a tracker domain of this project; add it to "Allowed tracker domains" on /dashboard/projects/${project.id}, ` +
    `or give it with the current ones: "quire projects update ${project.id} --tracker-domains <current domains>,${host}" ` +
    `(the flag replaces the list; "quire projects show ${project.id} --json" lists them).`
  );
}

/** The browser tracker: `GET /script.js` and the public endpoint it posts views to. */
export const collectRoutes: FastifyPluginAsyncTypebox<{ context: AppContext }> = async (app, { context }) => {
  const clientAddress = clientAddressResolver(context.config.trustedProxies);
  // The tracker posts text/plain so browsers send it without a preflight; the text is JSON.
  app.addContentTypeParser('text/plain', { parseAs: 'string' }, jsonBodyParser());

  app.get('/script.js', { schema: { tags: ['Visitor analytics'], summary: 'Browser tracker script', security: [], hide: true } }, async (request, reply) => {
    const coding = preferredCoding(request.headers['accept-encoding'], ['br', 'gzip']);
    const { body, etag } = scriptCopies.get(coding)!;
    reply.type('text/javascript; charset=utf-8').header('cache-control', 'public, max-age=3600').header('vary', 'accept-encoding').header('etag', etag);
    if (matchesEtag(request.headers['if-none-match'], etag)) return reply.code(304).send();
    if (coding !== null) reply.header('content-encoding', coding);
    return reply.send(body);
  });

  app.post('/v1/collect', {
    bodyLimit: collectBodyLimitBytes,
    schema: {
      tags: ['Visitor analytics'],
      summary: 'Collect a page view from the browser tracker',
      description: `Public: the page host must be one of the project’s tracker domains, and a request with \`Origin: null\` is refused. Bodies up to ${collectBodyLimitBytes} bytes. Limited per client address and per project each minute (QUIRE_COLLECT_RATE_LIMIT_PER_ADDRESS, QUIRE_COLLECT_RATE_LIMIT_PER_PROJECT); answers carry the RateLimit headers. Answers 204.`,
      security: [],
      body: CollectBody,
    },
    handler: async (request, reply) => {
      const { body } = request;
      // Sandboxed frames and data: or file: pages send "null": such a page on any site could add views.
      if (request.headers.origin === 'null') {
        throw new ApiError(
          'forbidden',
          'Views from pages without an origin (sandboxed frames, data: or file: pages) are not counted; load the tracker from the documentation page itself.',
        );
      }
      const project = await findProject(context.storage.db, body.project);
      if (!project) throw notFound(`Project ${body.project}`);
      let page: URL;
      try {
        page = new URL(body.url);
      } catch {
        throw invalidRequest('url must be the absolute address of the page.');
      }
      const origin = request.headers.origin;
      const originHost = origin ? URL.parse(origin)?.host : undefined;
      const refusedHost = [page.host, originHost].find((host) => host !== undefined && !allowedHost(project.tracker_domains, host));
      if (refusedHost !== undefined) throw new ApiError('forbidden', notTrackerDomain(project, refusedHost));
      const address = clientAddress(request);
      // Each event is checked before the limits are taken: a request refused anyway takes nothing from its address's or project's budget.
      const takeLimits = async () => void reply.headers(rateLimitHeaders(await takeCollectLimits(context, project.id, address)));
      const visitor = { visitorId: body.visitorId, userAgent: request.headers['user-agent'], ip: address };
      if (body.kind) {
        // The sender is who the request says, as for a view; the page's own data cannot name another.
        const interaction = prepareCollectedInteraction(context, { ...body.data, kind: body.kind, ...visitor }, page);
        await takeLimits();
        await storeCollectedInteraction(context, project, address, interaction);
        reportIngested(context, 'tracker', 1, 0);
        return reply.code(204).send();
      }
      const view = prepareView(context, { ...visitor, path: page.pathname + page.search, referrer: body.referrer, accept: request.headers.accept });
      await takeLimits();
      const { stored } = await storeVerified(context.analytics, project, [view]);
      reportIngested(context, 'tracker', stored, 0);
      return reply.code(204).send();
    },
  });
};
