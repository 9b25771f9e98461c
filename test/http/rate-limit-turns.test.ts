import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { takeRateLimits, takeRateLimitsInTurn } from '../../src/http/rate-limit.ts';
import type { Storage } from '../../src/storage/dialect.ts';
import { testDatabases } from '../support/storage.ts';

describe.each(testDatabases)('rate limits taken in turn on $dialect', (database) => {
  let storage: Storage;

  beforeAll(async () => {
    storage = await database.open();
  });
  afterAll(async () => {
    await storage.close();
  });

  const rule = { limit: 2, windowMs: 60_000 };

  it('decides each call as if it ran alone after the ones before it', async () => {
    const now = 1_000_000;
    // One hit already in the window of "turns-a", one outside it.
    await storage.db
      .insertInto('rate_limit_hits')
      .values([
        { bucket: 'turns-a', at: now - 1_000 },
        { bucket: 'turns-a', at: now - 120_000 },
      ])
      .execute();
    const states = await storage.db.transaction().execute((trx) =>
      takeRateLimitsInTurn(
        trx,
        storage.profile,
        [
          [{ bucket: 'turns-a', rule }],
          [
            { bucket: 'turns-a', rule },
            { bucket: 'turns-b', rule },
          ],
          [{ bucket: 'turns-b', rule }],
          [{ bucket: 'turns-b', rule }],
        ],
        { now },
      ),
    );
    const brief = states.map((call) => call.map(({ remaining, allowed, resetSeconds }) => ({ remaining, allowed, resetSeconds })));
    expect(brief).toEqual([
      [{ remaining: 0, allowed: true, resetSeconds: 59 }],
      // "turns-a" is used up, so the call is refused and takes nothing from "turns-b" either.
      [
        { remaining: 0, allowed: false, resetSeconds: 59 },
        { remaining: 2, allowed: true, resetSeconds: 60 },
      ],
      [{ remaining: 1, allowed: true, resetSeconds: 60 }],
      [{ remaining: 0, allowed: true, resetSeconds: 60 }],
    ]);
    // The same answers as taking them one by one: the next take sees every hit the calls recorded.
    const after = await storage.db.transaction().execute((trx) => takeRateLimits(trx, storage.profile, [{ bucket: 'turns-b', rule }], { now }));
    expect(after).toEqual([{ limit: 2, remaining: 0, resetSeconds: 60, allowed: false }]);
    const hits = await storage.db
      .selectFrom('rate_limit_hits')
      .select(['bucket'])
      .where('bucket', 'in', ['turns-a', 'turns-b'])
      .where('at', '=', now)
      .execute();
    expect(hits.map((hit) => hit.bucket).sort()).toEqual(['turns-a', 'turns-b', 'turns-b']);
  });
});
