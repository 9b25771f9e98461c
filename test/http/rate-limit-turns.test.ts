import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { takeRateLimits, takeRateLimitsCommitted, takeRateLimitsInTurn, type RateLimitRequest } from '../../src/http/rate-limit.ts';
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

  it('answers in one statement of its own as the transaction does, whatever the calls', async () => {
    // Seeded, so a failure replays; buckets with the characters an array literal escapes.
    let seed = 7;
    const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648) / 2_147_483_648;
    const names = ['plain', 'quote"d', "it's", 'comma,brace{}', 'back\\slash', 'naïve ✓', 'null', ''];
    const rules = [
      { limit: 1, windowMs: 10_000 },
      { limit: 3, windowMs: 60_000 },
      { limit: 5, windowMs: 3_600_000 },
    ];
    const now = 50_000_000;
    for (const side of ['turn', 'once']) {
      await storage.db
        .insertInto('rate_limit_hits')
        .values(names.flatMap((name, index) => [0, 1, 2].slice(0, index % 3).map((back) => ({ bucket: `${side}:${name}`, at: now - 5_000 - back * 30_000 }))))
        .execute();
    }
    for (let round = 0; round < 12; round++) {
      const calls: RateLimitRequest[][] = Array.from({ length: 1 + Math.floor(random() * 6) }, () =>
        Array.from({ length: Math.floor(random() * 3) }, () => {
          const index = Math.floor(random() * names.length);
          // One window per bucket: a take now and then prunes the hits out of its windows, which a wider one would still count.
          return { bucket: names[index], rule: rules[index % rules.length] };
        }),
      );
      const on = (side: string) => calls.map((requests) => requests.map((request) => ({ ...request, bucket: `${side}:${request.bucket}` })));
      const consume = round % 4 !== 3;
      const inTurn = await storage.db.transaction().execute((trx) => takeRateLimitsInTurn(trx, storage.profile, on('turn'), { now: now + round, consume }));
      const once = await takeRateLimitsCommitted(storage, on('once'), { now: now + round, consume });
      expect(once, `round ${round}`).toEqual(inTurn);
    }
    const left = async (side: string) =>
      (await storage.db.selectFrom('rate_limit_hits').select(['bucket', 'at']).where('bucket', 'like', `${side}:%`).execute())
        .map((hit) => `${hit.bucket.slice(side.length)} ${Number(hit.at)}`)
        .sort();
    // The same hits recorded (pruning aside, which only deletes hits out of every window).
    const inWindow = (hits: string[]) => hits.filter((hit) => Number(hit.split(' ').at(-1)) > now - 10_000);
    expect(inWindow(await left('once'))).toEqual(inWindow(await left('turn')));
  });

  it('allows exactly the limit to takes racing on one bucket', async () => {
    const limit = { limit: 7, windowMs: 60_000 };
    const states = await Promise.all(Array.from({ length: 30 }, () => takeRateLimitsCommitted(storage, [[{ bucket: 'race', rule: limit }]])));
    expect(states.filter(([[state]]) => state!.allowed).length).toBe(7);
    const [[after]] = await takeRateLimitsCommitted(storage, [[{ bucket: 'race', rule: limit }]], { consume: false });
    expect(after).toMatchObject({ allowed: false, remaining: 0 });
  });
});
