import { setImmediate } from 'node:timers/promises';
import { sql } from 'kysely';
import { runEvery } from '../lib/run-every.ts';
import type { Config } from '../config/config.ts';
import type { Storage } from '../storage/dialect.ts';
import type { AppContext } from './context.ts';

/** Rows one statement deletes at most, so that none holds SQLite's write lock, or many of PostgreSQL's row locks, for long. */
const defaultBatchSize = 1000;
const cleanupEveryMs = 10 * 60 * 1000;
/** The windows fixed in code: the collect and feedback limits' minute, the shared-link pages' hour. */
const widestFixedWindowMs = 3_600_000;

/**
 * The widest window any rate limit uses: every `…WindowSeconds` setting is a limit's window, and the
 * windows written in code are at most an hour. A hit older than this counts against no limit.
 */
export function widestRateLimitWindowMs(config: Config): number {
  const windows = Object.entries(config)
    .filter(([key]) => key.endsWith('WindowSeconds'))
    .map(([, seconds]) => Number(seconds) * 1000);
  return Math.max(widestFixedWindowMs, ...windows);
}

/**
 * Deletes the rate-limit hits older than `olderThanMs`, then the buckets left without hits. A take
 * prunes only the buckets it takes, so without this every bucket that is not taken again (a client
 * address seen once, an IPv6 /64 among the 65,536 of a /48) kept its hits, and on PostgreSQL its
 * bucket row, for good. Oldest hits first, `batchSize` rows a statement, the event loop free between
 * statements (and `signal` stops between them). On PostgreSQL the rows a take holds are skipped
 * (`SKIP LOCKED`; the next round gets them): the clean-up never waits on a take, so the two never
 * deadlock, and a take waits at most for one of its statements. A bucket row is only what takes lock,
 * which the next take makes again, so deleting one whose first hit is just being committed loses
 * nothing. Answers how many of each it deleted.
 */
export async function deleteExpiredRateLimits(
  storage: Pick<Storage, 'db' | 'profile'>,
  olderThanMs: number,
  options: { now?: number; batchSize?: number; signal?: AbortSignal } = {},
): Promise<{ hits: number; buckets: number }> {
  const { db, profile } = storage;
  const cutoff = (options.now ?? Date.now()) - olderThanMs;
  const batchSize = options.batchSize ?? defaultBatchSize;
  const rowId = sql.raw(profile.rowId.column);
  let hits = 0;
  for (;;) {
    const expired = db
      .selectFrom('rate_limit_hits')
      .select(sql`${rowId}`.as('row_id'))
      .where('at', '<=', cutoff)
      .orderBy('at')
      .limit(batchSize)
      .$if(profile.skipLocked, (query) => query.forUpdate().skipLocked());
    const deleted = Number((await db.deleteFrom('rate_limit_hits').where(rowId, 'in', expired).executeTakeFirst()).numDeletedRows);
    hits += deleted;
    if (deleted < batchSize || options.signal?.aborted) break;
    await setImmediate();
  }
  // Pages of the buckets in key order, so each round reads every bucket once however many are left.
  let buckets = 0;
  let after: string | undefined;
  for (;;) {
    const page = await db
      .selectFrom('rate_limit_buckets')
      .select('bucket')
      .$if(after !== undefined, (query) => query.where('bucket', '>', after!))
      .orderBy('bucket')
      .limit(batchSize)
      .execute();
    if (page.length === 0) break;
    const last = page[page.length - 1].bucket;
    const empty = db
      .selectFrom('rate_limit_buckets as b')
      .select(sql`b.${rowId}`.as('row_id'))
      .$if(after !== undefined, (query) => query.where('b.bucket', '>', after!))
      .where('b.bucket', '<=', last)
      .where((eb) => eb.not(eb.exists(eb.selectFrom('rate_limit_hits as h').select('h.at').whereRef('h.bucket', '=', 'b.bucket'))))
      .$if(profile.skipLocked, (query) => query.forUpdate().skipLocked());
    buckets += Number((await db.deleteFrom('rate_limit_buckets').where(rowId, 'in', empty).executeTakeFirst()).numDeletedRows);
    if (page.length < batchSize || options.signal?.aborted) break;
    after = last;
    await setImmediate();
  }
  return { hits, buckets };
}

/**
 * Deletes expired rate-limit rows (deleteExpiredRateLimits, past the widest window) at start and every
 * ten minutes. Returns how to stop, which ends a round under way after its current statement.
 */
export function startRateLimitCleanup(context: Pick<AppContext, 'storage' | 'config' | 'logger'>): { stop(): Promise<void> } {
  const olderThanMs = widestRateLimitWindowMs(context.config);
  const stopping = new AbortController();
  const rounds = runEvery(
    cleanupEveryMs,
    async () => {
      const deleted = await deleteExpiredRateLimits(context.storage, olderThanMs, { signal: stopping.signal });
      if (deleted.hits + deleted.buckets > 0) context.logger.debug(deleted, 'deleted expired rate-limit rows');
    },
    (error) => context.logger.warn({ err: error }, 'deleting expired rate-limit rows failed; the next round retries'),
  );
  return {
    stop() {
      stopping.abort();
      return rounds.stop();
    },
  };
}
