import type { Kysely } from 'kysely';
import type { DialectProfile } from '../storage/dialect.ts';
import type { Database } from '../storage/schema.ts';
import { ApiError } from './errors.ts';

export interface RateLimitRule {
  /** Requests allowed in any window of `windowMs`. */
  limit: number;
  windowMs: number;
}

export interface RateLimitState {
  limit: number;
  remaining: number;
  /** Seconds until the oldest counted request leaves the window (and a request is allowed again). */
  resetSeconds: number;
  allowed: boolean;
}

/**
 * Makes concurrent transactions on one bucket take turns until commit (row lock on PostgreSQL;
 * SQLite's write transactions are serialized already). Taking it twice in a transaction is harmless.
 */
export async function lockRateLimitBucket(trx: Kysely<Database>, profile: DialectProfile, bucket: string): Promise<void> {
  await trx
    .insertInto('rate_limit_buckets')
    .values({ bucket })
    .onConflict((conflict) => conflict.column('bucket').doNothing())
    .execute();
  if (profile.rowLocks) await trx.selectFrom('rate_limit_buckets').select('bucket').where('bucket', '=', bucket).forUpdate().execute();
}

/**
 * An exact rolling-window limit kept in the database, so it holds across every process that shares
 * it. Call inside a transaction: the hit is recorded only if the transaction commits, and the
 * bucket row lock (PostgreSQL) or the write lock (SQLite) makes concurrent callers take turns.
 * With `consume: false` it only reports the state (a replayed idempotent request, say).
 */
export async function takeRateLimit(
  trx: Kysely<Database>,
  profile: DialectProfile,
  bucket: string,
  rule: RateLimitRule,
  options: { consume?: boolean; now?: number } = {},
): Promise<RateLimitState> {
  const now = options.now ?? Date.now();
  const windowStart = now - rule.windowMs;
  await lockRateLimitBucket(trx, profile, bucket);
  await trx.deleteFrom('rate_limit_hits').where('bucket', '=', bucket).where('at', '<=', windowStart).execute();
  const hits = await trx
    .selectFrom('rate_limit_hits')
    .select((eb) => [eb.fn.countAll<number>().as('count'), eb.fn.min('at').as('oldest')])
    .where('bucket', '=', bucket)
    .executeTakeFirstOrThrow();
  const used = Number(hits.count);
  const allowed = used < rule.limit;
  const consume = (options.consume ?? true) && allowed;
  if (consume) await trx.insertInto('rate_limit_hits').values({ bucket, at: now }).execute();
  const oldest = hits.oldest === null ? now : Number(hits.oldest);
  return {
    limit: rule.limit,
    remaining: Math.max(0, rule.limit - used - (consume ? 1 : 0)),
    resetSeconds: Math.max(1, Math.ceil((oldest + rule.windowMs - now) / 1000)),
    allowed,
  };
}

export function rateLimitHeaders(state: RateLimitState): Record<string, string> {
  return {
    'ratelimit-limit': String(state.limit),
    'ratelimit-remaining': String(state.remaining),
    'ratelimit-reset': String(state.resetSeconds),
  };
}

export function rateLimited(state: RateLimitState, what: string): ApiError {
  return new ApiError('rate_limited', `${what} Try again in ${state.resetSeconds} seconds.`, {
    headers: { ...rateLimitHeaders(state), 'retry-after': String(state.resetSeconds) },
  });
}
