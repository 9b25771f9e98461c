import type { Readable } from 'node:stream';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { findProject } from '../../accounts/projects.ts';
import { assetRuleOf } from '../capture/assets.ts';
import { reportIngested } from '../ingest/ingested.ts';
import type { SecretBox } from '../../accounts/secrets.ts';
import type { AppContext } from '../../http/context.ts';
import { ApiError, notFound } from '../../http/errors.ts';
import { errorResponses } from '../../http/schemas.ts';
import type { AnalyticsDrainRow } from '../../storage/tables/analytics.ts';
import { authenticate } from './auth.ts';
import { readBody, type ReadBody } from '../../http/shared-body.ts';
import { inlineBelow, ParsePool } from '../../lib/parse-pool.ts';
import { isGzip } from './body.ts';
import { findDrain, resealDrainSecret, type DrainKind } from './drains.ts';
import { DrainParams, DrainResult } from './schemas.ts';
import { drainBatchWork } from './prepare-batch.ts';
import { storeBatch } from './store-batch.ts';

const tags = ['Log drains'];
const SecretQuery = Type.Object({
  secret: Type.Optional(Type.String({ maxLength: 200, description: 'The drain’s secret, for hosts that cannot send an Authorization header.' })),
});
const nothing = { accepted: 0, duplicates: 0, skipped: 0, reasons: {}, notes: {} };

function unauthorized(kind: DrainKind): ApiError {
  const how =
    kind === 'vercel'
      ? 'Vercel signs each batch with the drain’s secret (x-vercel-signature, checked over the body as sent): set it as the drain’s signature secret in Vercel.'
      : 'Send the drain’s secret as "Authorization: Bearer <secret>" (Cloudflare: a header_Authorization parameter) or as ?secret=<secret>.';
  return new ApiError('unauthorized', `This batch does not carry the drain’s secret. ${how}`, {
    headers: { 'www-authenticate': 'Bearer realm="quire-drain"' },
  });
}

/**
 * Where hosts post their log batches. Public: each drain's own secret is its authentication. The
 * body is read as bytes whatever its content type (hosts label NDJSON and gzip in many ways), a large
 * one into shared memory that crosses to the parse thread without a copy (http/shared-body.ts), and
 * the answer comes only after the batch is committed.
 */
export const receiveRoutes: FastifyPluginAsyncTypebox<{ context: AppContext; box: SecretBox }> = async (app, { context, box }) => {
  const { storage, config } = context;
  const limit = config.ingestBodyLimitBytes;
  const pool = new ParsePool(new URL('./parse-thread.ts', import.meta.url), drainBatchWork, config.parseThreads);
  app.addHook('onClose', () => pool.close());
  app.removeAllContentTypeParsers();
  // The route's bodyLimit applies while reading; the handler gives a shared body back once read.
  app.addContentTypeParser('*', (request: FastifyRequest, payload: Readable) => readBody(request, payload, inlineBelow));

  /** The drain the path names, with its project; 404 when either is unknown or the drain is another project's. */
  async function drainOf(projectId: string, drainId: string, reply: FastifyReply) {
    const drain = await findDrain(storage.db, projectId, drainId);
    const project = drain && (await context.accounts.projects.get(projectId, () => findProject(storage.db, projectId)));
    if (!drain || !project) throw notFound(`Drain ${drainId} of project ${projectId}`);
    // Vercel checks every answer of the endpoint for its verification code.
    if (drain.kind === 'vercel' && drain.verify_token !== null) reply.header('x-vercel-verify', drain.verify_token);
    return { drain, project };
  }

  function secretOf(drain: AnalyticsDrainRow): string {
    try {
      return box.open(drain.secret);
    } catch (error) {
      context.logger.error({ err: error, drain: drain.id }, 'A drain secret cannot be decrypted with QUIRE_SECRET_KEY or QUIRE_SECRET_KEY_PREVIOUS.');
      throw new ApiError('unavailable', 'The drain cannot check batches right now; the operator has been told in the logs.');
    }
  }

  /**
   * An unsigned batch to a Vercel drain with a verification code is taken as Vercel's endpoint check
   * and stores nothing. Real batches are always signed, so a stream of them means the drain's secret is
   * not set as the signature secret in Vercel: the operator is told, once a minute per drain at most.
   */
  const unsignedWarned = new Map<string, number>();
  const unsignedBatch = (drainId: string) => {
    const now = Date.now();
    if (now - (unsignedWarned.get(drainId) ?? 0) < 60_000) return;
    unsignedWarned.set(drainId, now);
    context.logger.warn(
      { drain: drainId },
      "An unsigned batch reached a Vercel drain: answered as Vercel's endpoint check, nothing stored. If Vercel sends logs to this drain, set the drain's secret as its signature secret in Vercel.",
    );
  };

  /**
   * Authenticates, reads and stores one batch whose bytes are `raw` (a view of a shared slab for a large
   * one); `release` gives the slab back, once the batch is parsed and before it is stored.
   */
  async function receive(
    request: FastifyRequest,
    { projectId, drainId }: { projectId: string; drainId: string },
    reply: FastifyReply,
    raw: Buffer,
    release: () => void,
  ) {
    const { drain, project } = await drainOf(projectId, drainId, reply);
    const secret = secretOf(drain);
    // The batch is authenticated on its bytes as sent: nothing is decompressed for a sender without the secret.
    const outcome = authenticate(request, drain, secret, raw);
    if (outcome === 'unauthorized') throw unauthorized(drain.kind as DrainKind);
    if (outcome === 'handshake') {
      if (raw.length > 0) unsignedBatch(drain.id);
      return nothing;
    }
    await resealDrainSecret(storage.db, box, drain, secret);
    // Decompressing, reading and checking the records runs in a parse thread for a large batch; gzip is
    // counted as about 8 times its size.
    const gzip = isGzip(raw, request.headers['content-encoding']);
    const input = { kind: drain.kind as DrainKind, drainId: drain.id, rule: assetRuleOf(project), limit, now: Date.now() };
    let prepared;
    try {
      prepared = await pool.run({ ...input, body: raw, gzip }, gzip ? raw.length * 8 : raw.length);
    } finally {
      // Parsed: the slab serves the next batch while this one is stored.
      release();
    }
    if (prepared.failure !== undefined) throw new ApiError(prepared.failure.code, prepared.failure.message);
    const result = await storeBatch(context.analytics, project, prepared);
    reportIngested(context, 'drain', result.accepted, result.skipped);
    return result;
  }

  app.get('/v1/analytics/:projectId/drains/:drainId', {
    schema: {
      tags,
      summary: 'Answer a host’s check of the drain',
      description: 'Vercel drains with a `verifyToken` answer 200 with the `x-vercel-verify` header; counts nothing.',
      security: [],
      params: DrainParams,
      response: { 200: DrainResult, ...errorResponses(['not_found']) },
    },
    handler: async (request, reply) => {
      const { drain } = await drainOf(request.params.projectId, request.params.drainId, reply);
      if (drain.kind !== 'vercel' || drain.verify_token === null) throw notFound(`A verification answer for drain ${drain.id}`);
      return nothing;
    },
  });

  app.post('/v1/analytics/:projectId/drains/:drainId', {
    bodyLimit: limit,
    schema: {
      tags,
      summary: 'Receive a host’s log batch',
      description: `Public; authenticated by the drain’s secret: Vercel’s \`x-vercel-signature\` (hex HMAC-SHA1 of the body as sent, compressed or not), else \`Authorization: Bearer <secret>\` or \`?secret=\`. NDJSON or a JSON array, optionally gzip (\`Content-Encoding: gzip\`), up to ${limit} bytes before and after decompression. Answers 200 once the batch is committed; the same batch sent again is not counted twice; a record that is not a page view is skipped and counted, never the batch's failure.`,
      security: [],
      params: DrainParams,
      querystring: SecretQuery,
      response: { 200: DrainResult, ...errorResponses(['invalid_request', 'unauthorized', 'not_found', 'payload_too_large', 'unavailable']) },
    },
    handler: async (request, reply) => {
      const read = request.body as ReadBody | undefined;
      const release = () => read?.release();
      try {
        return await receive(request, request.params, reply, read?.bytes ?? Buffer.alloc(0), release);
      } finally {
        // A batch refused or answered before its parse gives its slab back here (a second release is ignored).
        release();
      }
    },
  });
};
