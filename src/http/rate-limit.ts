import { sql, type Kysely } from 'kysely';
import type { DialectProfile, Storage } from '../storage/dialect.ts';
import type { Database } from '../storage/schema.ts';
import { ApiError } from './errors.ts';

export interface RateLimitRule {
  /** Requests allowed in any window of `windowMs`. */
  limit: number;
  /**
   * A window over an hour must be a `…WindowSeconds` setting's: the clean-up keeps hits only as long as
   * the widest of those, or an hour (rate-limit-cleanup.ts).
   */
  windowMs: number;
}

export interface RateLimitState {
  limit: number;
  remaining: number;
  /** Seconds until the oldest counted request leaves the window (and a request is allowed again). */
  resetSeconds: number;
  allowed: boolean;
}

/** One bucket's limit, as takeRateLimits takes several at once. */
export interface RateLimitRequest {
  bucket: string;
  rule: RateLimitRule;
}

/**
 * Share of calls that also delete their buckets' expired hits; the count ignores them meanwhile, so this is only
 * housekeeping. Buckets not taken again are cleaned up in the background (rate-limit-cleanup.ts).
 */
const pruneShare = 1 / 16;

/** The distinct buckets in the one order every take locks them. */
const lockOrder = (buckets: string[]) => [...new Set(buckets)].sort();

/**
 * Makes concurrent transactions on these buckets take turns until commit. On PostgreSQL an upsert
 * that changes the bucket's row takes its row lock (buckets are locked in one order, so two callers
 * never wait on each other crosswise; taking it twice in a transaction is harmless). SQLite needs no
 * statement: every Quire transaction begins with BEGIN IMMEDIATE (sqlite/connect.ts), which already
 * holds the database's one write lock until commit, so a write here would only add a page to the log.
 */
export async function lockRateLimitBucket(trx: Kysely<Database>, profile: DialectProfile, ...buckets: string[]): Promise<void> {
  if (!profile.rowLocks || buckets.length === 0) return;
  await trx
    .insertInto('rate_limit_buckets')
    .values(lockOrder(buckets).map((bucket) => ({ bucket })))
    .onConflict((conflict) => conflict.column('bucket').doUpdateSet((eb) => ({ bucket: eb.ref('excluded.bucket') })))
    .execute();
}

/**
 * Exact rolling-window limits kept in the database, so they hold across every process that shares
 * it, taken together in three statements whatever their number: lock the buckets, count each one's
 * hits in its window, record a hit in each. Call inside a transaction: the hits are recorded only if
 * the transaction commits, and only when every bucket allows the request (a refused request uses up
 * none of them). With `consume: false` it only reports the states (a replayed idempotent request, say).
 */
export async function takeRateLimits(
  trx: Kysely<Database>,
  profile: DialectProfile,
  requests: RateLimitRequest[],
  options: { consume?: boolean; now?: number } = {},
): Promise<RateLimitState[]> {
  const [states] = await takeRateLimitsInTurn(trx, profile, [requests], options);
  return states;
}

/**
 * Several requests' limits in one transaction and the same three statements, each request decided
 * as if it had run alone after the ones before it in `calls` (the hits an earlier one recorded count
 * against a later one), so a caller may gather the requests that arrive together and commit once for
 * them all (docs/surface/limits.ts). Answers each call's states, in order.
 */
export async function takeRateLimitsInTurn(
  trx: Kysely<Database>,
  profile: DialectProfile,
  calls: RateLimitRequest[][],
  options: { consume?: boolean; now?: number } = {},
): Promise<RateLimitState[][]> {
  const now = options.now ?? Date.now();
  /** Each bucket and window once: the same bucket may be asked with another window by another caller. */
  const windows = new Map<string, RateLimitRequest>();
  const windowKey = ({ bucket, rule }: RateLimitRequest) => `${rule.windowMs} ${bucket}`;
  for (const request of calls.flat()) windows.set(windowKey(request), request);
  const distinct = [...windows.values()];
  await lockRateLimitBucket(trx, profile, ...distinct.map((request) => request.bucket));
  if (Math.random() < pruneShare) {
    // Out of every window the take asks of the bucket.
    const widest = new Map<string, number>();
    for (const { bucket, rule } of distinct) widest.set(bucket, Math.max(widest.get(bucket) ?? 0, rule.windowMs));
    for (const [bucket, windowMs] of widest)
      await trx
        .deleteFrom('rate_limit_hits')
        .where('bucket', '=', bucket)
        .where('at', '<=', now - windowMs)
        .execute();
  }
  // One row per bucket and window: the same bucket under two windows is counted apart. The windows are
  // counted in one statement (a union), so a take costs the same round trips whatever their number: on
  // PostgreSQL each is a wait while the other takes queue behind this transaction (docs/surface/limits.ts).
  const counts = [...Map.groupBy(distinct, (request) => request.rule.windowMs)].map(([windowMs, requests]) =>
    trx
      .selectFrom('rate_limit_hits')
      .select((eb) => [sql.lit(windowMs).as('window_ms'), 'bucket', eb.fn.countAll<number>().as('count'), eb.fn.min('at').as('oldest')])
      .where(
        'bucket',
        'in',
        requests.map((request) => request.bucket),
      )
      .where('at', '>', now - windowMs)
      .groupBy('bucket'),
  );
  const [first, ...others] = counts;
  const rows = first ? await others.reduce((query, count) => query.unionAll(count), first).execute() : [];
  const found = new Map<string, { used: number; oldest: number }>();
  for (const row of rows)
    found.set(`${Number(row.window_ms)} ${row.bucket}`, { used: Number(row.count), oldest: row.oldest == null ? now : Number(row.oldest) });
  /** Hits recorded by the calls before, per bucket: each is at `now`, inside every window. */
  const taken = new Map<string, number>();
  const hits: { bucket: string; at: number }[] = [];
  const answers = calls.map((requests) => {
    const counted = requests.map((request) => {
      const known = found.get(windowKey(request));
      return { used: (known?.used ?? 0) + (taken.get(request.bucket) ?? 0), oldest: known?.oldest ?? now };
    });
    const states = statesOf(requests, counted, now, options.consume ?? true);
    if (states.every((state) => state.allowed) && (options.consume ?? true))
      for (const { bucket } of requests) {
        taken.set(bucket, (taken.get(bucket) ?? 0) + 1);
        hits.push({ bucket, at: now });
      }
    return states;
  });
  if (hits.length > 0) await trx.insertInto('rate_limit_hits').values(hits).execute();
  return answers;
}

/**
 * One call's states from each bucket's hits in its window (`used`, the calls' before it included) and its
 * oldest hit's time: allowed when every bucket has room, and then (with `consume`) one hit taken from each.
 */
function statesOf(requests: RateLimitRequest[], counted: { used: number; oldest: number }[], now: number, consume: boolean): RateLimitState[] {
  const allowed = counted.every(({ used }, index) => used < requests[index].rule.limit);
  const taking = consume && allowed;
  return counted.map(({ used, oldest }, index) => {
    const { rule } = requests[index];
    return {
      limit: rule.limit,
      remaining: Math.max(0, rule.limit - used - (taking ? 1 : 0)),
      resetSeconds: Math.max(1, Math.ceil((oldest + rule.windowMs - now) / 1000)),
      allowed: used < rule.limit,
    };
  });
}

/**
 * takeRateLimitsInTurn in a transaction of its own, answered once committed without waiting for the disk
 * (see takeOnceCommitted). On PostgreSQL it is one statement, the `rate_limit_take` function (the 045
 * migration), which locks, counts and records as that transaction does, and commits with
 * `synchronous_commit` off: one round trip instead of five, and no wait for the log's flush, where each
 * round trip of a busy server waits for its event loop's turn while other takes queue behind it.
 */
export async function takeRateLimitsCommitted(
  storage: Pick<Storage, 'db' | 'deferDurability' | 'profile'>,
  calls: RateLimitRequest[][],
  options: { consume?: boolean; now?: number } = {},
): Promise<RateLimitState[][]> {
  if (storage.profile.name !== 'postgres') return takeOnceCommitted(storage, (trx) => takeRateLimitsInTurn(trx, storage.profile, calls, options));
  const now = options.now ?? Date.now();
  const consume = options.consume ?? true;
  const requests = calls.flatMap((requests, call) => requests.map((request) => ({ call, ...request })));
  const { rows } = await sql<{ used_hits: string | number; oldest_hit: string | number }>`
    select used_hits, oldest_hit from rate_limit_take(
      ${requests.map((request) => request.call)}::integer[],
      ${requests.map((request) => request.bucket)}::text[],
      ${requests.map((request) => request.rule.windowMs)}::bigint[],
      ${requests.map((request) => request.rule.limit)}::bigint[],
      ${lockOrder(requests.map((request) => request.bucket))}::text[],
      ${now}::bigint, ${consume}, ${Math.random() < pruneShare}
    )`.execute(storage.db);
  let next = 0;
  return calls.map((requests) => {
    const counted = requests.map(() => {
      const row = rows[next++]!;
      return { used: Number(row.used_hits), oldest: Number(row.oldest_hit) };
    });
    return statesOf(requests, counted, now, consume);
  });
}

/**
 * Runs a transaction of rate-limit takes and answers once it has committed, without waiting for the disk (see
 * Storage.deferDurability): on SQLite a flush of the log per take would come ahead of every answer, 2 ms at the
 * median and tens of milliseconds while the disk is busy. A crash may forget the last takes' hits, which only lets
 * those clients ask that many more times. For limits on reads and answers, not on work that outlasts a crash.
 */
async function takeOnceCommitted<T>(storage: Pick<Storage, 'db' | 'deferDurability'>, take: (trx: Kysely<Database>) => Promise<T>): Promise<T> {
  return (await storage.deferDurability(() => storage.db.transaction().execute(take))).value;
}

/** One limit; see takeRateLimits. */
export async function takeRateLimit(
  trx: Kysely<Database>,
  profile: DialectProfile,
  bucket: string,
  rule: RateLimitRule,
  options: { consume?: boolean; now?: number } = {},
): Promise<RateLimitState> {
  const [state] = await takeRateLimits(trx, profile, [{ bucket, rule }], options);
  return state;
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
