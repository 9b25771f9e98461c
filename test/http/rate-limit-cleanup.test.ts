import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deleteExpiredRateLimits, widestRateLimitWindowMs } from '../../src/http/rate-limit-cleanup.ts';
import { lockRateLimitBucket, takeRateLimitsCommitted } from '../../src/http/rate-limit.ts';
import type { Storage } from '../../src/storage/dialect.ts';
import { testConfig } from '../support/app.ts';
import { testDatabases } from '../support/storage.ts';

const hourMs = 3_600_000;

describe('the widest rate-limit window', () => {
  it('is the widest window setting, and never under the hour of the windows written in code', () => {
    expect(widestRateLimitWindowMs(testConfig())).toBe(24 * hourMs);
    expect(widestRateLimitWindowMs(testConfig({ jobRateWindowSeconds: 2 * 86_400 }))).toBe(48 * hourMs);
    const narrow = { assistantAddressWindowSeconds: 60, assistantRateWindowSeconds: 60, analyticsRateWindowSeconds: 60, jobRateWindowSeconds: 60 };
    expect(widestRateLimitWindowMs(testConfig({ ...narrow, discoveryRateWindowSeconds: 60, docsMcpRateWindowSeconds: 60 }))).toBe(hourMs);
  });
});

describe.each(testDatabases)('the clean-up of expired rate-limit rows on $dialect', (database) => {
  let storage: Storage;

  beforeAll(async () => {
    storage = await database.open();
  });
  afterAll(async () => {
    await storage.close();
  });

  const rows = async (prefix: string) => ({
    hits: (await storage.db.selectFrom('rate_limit_hits').select('at').where('bucket', 'like', `${prefix}%`).execute()).length,
    buckets: (await storage.db.selectFrom('rate_limit_buckets').select('bucket').where('bucket', 'like', `${prefix}%`).execute()).length,
  });

  it('leaves no rows of rotating addresses once their hits are older than the widest window, and keeps what limits still count', async () => {
    const now = Date.now();
    const widest = 24 * hourMs;
    const rule = { limit: 2, windowMs: hourMs };
    // A day and more ago, one request from each of 23 /64s of one /48; each is never seen again.
    const rotated = Array.from({ length: 23 }, (_, network) => [{ bucket: `rotating:address:2001:db8:ffff:${network.toString(16)}::`, rule }]);
    await takeRateLimitsCommitted(storage, rotated, { now: now - widest - 60_000 });
    // A bucket taken then and twice now (its old hit written after, as a take may prune it), and one taken an
    // hour ago by a limit whose window is the widest.
    await takeRateLimitsCommitted(storage, [[{ bucket: 'rotating:kept', rule }], [{ bucket: 'rotating:kept', rule }]], { now });
    await storage.db
      .insertInto('rate_limit_hits')
      .values({ bucket: 'rotating:kept', at: now - widest - 60_000 })
      .execute();
    await takeRateLimitsCommitted(storage, [[{ bucket: 'rotating:recent', rule: { limit: 2, windowMs: widest } }]], { now: now - hourMs });
    const hasBucketRows = storage.profile.rowLocks;
    expect(await rows('rotating:')).toEqual({ hits: 27, buckets: hasBucketRows ? 25 : 0 });

    // Batches smaller than the rows, so that each loop goes round several times.
    const deleted = await deleteExpiredRateLimits(storage, widest, { now, batchSize: 5 });
    expect(deleted).toEqual({ hits: 24, buckets: hasBucketRows ? 23 : 0 });
    expect(await rows('rotating:address:')).toEqual({ hits: 0, buckets: 0 });
    expect(await rows('rotating:kept')).toEqual({ hits: 2, buckets: hasBucketRows ? 1 : 0 });
    expect(await rows('rotating:recent')).toEqual({ hits: 1, buckets: hasBucketRows ? 1 : 0 });
    // The limits still count what they counted: the kept bucket is used up, the recent one has one left.
    const [[kept], [recent]] = await takeRateLimitsCommitted(
      storage,
      [[{ bucket: 'rotating:kept', rule }], [{ bucket: 'rotating:recent', rule: { limit: 2, windowMs: widest } }]],
      { now, consume: false },
    );
    expect(kept.allowed).toBe(false);
    expect(recent.remaining).toBe(1);
    expect(await deleteExpiredRateLimits(storage, widest, { now, batchSize: 5 })).toEqual({ hits: 0, buckets: 0 });
  });

  it.runIf(database.dialect === 'postgres')('passes over a bucket a take holds, without waiting for it', async () => {
    await storage.db
      .insertInto('rate_limit_buckets')
      .values([{ bucket: 'held:taken' }, { bucket: 'held:idle' }])
      .execute();
    let release!: () => void;
    let locked!: () => void;
    const holding = new Promise<void>((resolve) => (locked = resolve));
    const take = storage.db.transaction().execute(async (trx) => {
      await lockRateLimitBucket(trx, storage.profile, 'held:taken');
      locked();
      await new Promise<void>((resolve) => (release = resolve));
    });
    await holding;
    // Old enough that no hit of the other test goes: only buckets without hits do.
    const olderThanMs = 30 * 24 * hourMs;
    try {
      expect(await deleteExpiredRateLimits(storage, olderThanMs)).toEqual({ hits: 0, buckets: 1 });
      expect((await rows('held:')).buckets).toBe(1);
    } finally {
      release();
      await take;
    }
    expect(await deleteExpiredRateLimits(storage, olderThanMs)).toEqual({ hits: 0, buckets: 1 });
    expect(await rows('held:')).toEqual({ hits: 0, buckets: 0 });
  });
});
