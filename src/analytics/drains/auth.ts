import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { AnalyticsDrainRow } from '../../storage/tables/analytics.ts';

/**
 * Whether a batch comes from the drain's host: `authorized`, `unauthorized`, or (Vercel only) the
 * `handshake` Vercel sends unsigned when a drain is added, answered with the verification code and
 * counting nothing.
 */
export type DrainAuthentication = 'authorized' | 'unauthorized' | 'handshake';

/** Equal texts in time that does not depend on where they differ (digests first, so lengths may differ too). */
function sameSecret(given: string, expected: string): boolean {
  const digest = (text: string) => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(given), digest(expected));
}

/** The secret the request carries: `Authorization: Bearer …` (a custom header of the host) or `?secret=`. */
function presentedSecret(request: FastifyRequest): string | undefined {
  const header = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '');
  if (header) return header[1];
  const query = (request.query as Record<string, unknown> | undefined)?.secret;
  return typeof query === 'string' ? query : undefined;
}

/** Vercel's `x-vercel-signature`: the hex HMAC-SHA1 of the raw body with the drain's secret. */
export function vercelSignature(secret: string, body: Buffer): string {
  return createHmac('sha1', secret).update(body).digest('hex');
}

/**
 * Checks the request against the drain's secret. A Vercel signature is checked over the body as sent
 * (`raw`, compressed or not), never over its decompressed bytes: checking those would mean decompressing
 * for any sender, so a small gzip bomb with a made-up signature would cost the server the whole body limit.
 */
export function authenticate(
  request: FastifyRequest,
  drain: Pick<AnalyticsDrainRow, 'kind' | 'verify_token'>,
  secret: string,
  raw: Buffer,
): DrainAuthentication {
  const presented = presentedSecret(request);
  if (presented !== undefined) return sameSecret(presented, secret) ? 'authorized' : 'unauthorized';
  const signature = request.headers['x-vercel-signature'];
  if (drain.kind !== 'vercel') return 'unauthorized';
  if (typeof signature !== 'string') return drain.verify_token === null ? 'unauthorized' : 'handshake';
  return sameSecret(signature.toLowerCase(), vercelSignature(secret, raw)) ? 'authorized' : 'unauthorized';
}
