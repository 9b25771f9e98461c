import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { foldPending } from '../../src/analytics/fold/fold.ts';
import { rebuildProject } from '../../src/analytics/fold/rebuild.ts';
import { existingProjectKey } from '../../src/analytics/ingest/dense-ids.ts';
import { prepareAll, storeEvents, type IngestProject } from '../../src/analytics/ingest/ingest.ts';
import { dimensionBreakdown } from '../../src/analytics/query/dimensions.ts';
import { page } from '../../src/analytics/query/query.ts';
import { createAnalyticsState, type AnalyticsState } from '../../src/analytics/state.ts';
import type { Storage } from '../../src/storage/dialect.ts';
import { createTenant } from '../support/app.ts';
import { testDatabases } from '../support/storage.ts';

const dayMs = 86_400_000;
const start = Date.UTC(2026, 4, 1);
const agents = ['Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0', 'Mozilla/5.0 (compatible; GPTBot/1.2; +https://openai.com/gptbot)'];
const referrers = ['https://google.com/', 'https://news.ycombinator.com/item', undefined];

/** `count` views over three days from a fixed pseudo-random sequence, as the events API takes them. */
function views(count: number, seed: number) {
  let state = seed;
  const next = (n: number) => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state % n;
  };
  return Array.from({ length: count }, () => ({
    timestamp: start + next(3 * dayMs),
    path: `/page-${next(5)}`,
    visitorId: `v${next(30)}`,
    userAgent: agents[next(2)],
    referrer: referrers[next(3)],
  }));
}

/**
 * A fold computes what it writes in a snapshot that takes no write lock, then writes it in a transaction that
 * checks nothing it read has changed (fold/fold.ts). Here something runs between the two: another fold of the
 * same batches, a rebuild, or more ingestion. The answers must stay those of a project folded without it (each
 * view counted once), read from the day sets and breakdown days alone.
 */
describe.each(testDatabases)('folds planned in a snapshot on $dialect', (database) => {
  let storage: Storage;
  let analytics: AnalyticsState;
  beforeAll(async () => {
    storage = await database.open();
    analytics = createAnalyticsState(storage);
  });
  afterAll(async () => storage.close());

  /** The storage, with `between` run once: after the next fold has read its snapshot, before its transaction. */
  const interrupted = (between: () => Promise<unknown>): Storage => {
    let next: (() => Promise<unknown>) | null = between;
    return {
      ...storage,
      async readSnapshot(work) {
        const value = await storage.readSnapshot(work);
        const run = next;
        next = null;
        await run?.();
        return value;
      },
    };
  };

  type Input = ReturnType<typeof views>;
  const store = (project: IngestProject, inputs: Input) => storeEvents(analytics, project, prepareAll(inputs).events);

  /** What the queries answer over the three days: pages (views and visitors) and sources. */
  const answers = async (projectId: string) => {
    const range = { from: start, to: start + 3 * dayMs };
    const pages = [];
    for (const measure of ['views', 'visitors'] as const) pages.push(await page(analytics, projectId, { measure, ...range, limit: 50, offset: 0 }));
    const sources = await dimensionBreakdown(analytics, projectId, { ...range, filters: [], property: 'source', viewClass: 'all', limit: 50, offset: 0 });
    return { pages, sources };
  };

  /** A project folded without interference, with the same views: the answers each case must give. */
  const reference = async (inputs: Input[]) => {
    const { project } = await createTenant(storage);
    for (const part of inputs) await store(project, part);
    await foldPending(storage, (await existingProjectKey(storage.db, analytics.ids, project.id))!, { repair: true });
    return answers(project.id);
  };

  const pendingLeft = async (key: number) => (await storage.db.selectFrom('analytics_pending').select('id').where('project_key', '=', key).execute()).length;

  /**
   * Stores `first`, folds with `between` run after the fold's snapshot and before its write (`between` is given the
   * project, its key and `second`), folds what is left with a repair, and checks the answers of both batches.
   */
  async function foldAround(first: Input, second: Input, between: (project: IngestProject, key: number) => Promise<unknown>, leftAfter: number) {
    const { project } = await createTenant(storage);
    await store(project, first);
    const key = (await existingProjectKey(storage.db, analytics.ids, project.id))!;
    await foldPending(
      interrupted(() => between(project, key)),
      key,
      { repair: false },
    );
    expect(await pendingLeft(key)).toBe(leftAfter);
    await foldPending(storage, key, { repair: true });
    expect(await pendingLeft(key)).toBe(0);
    const got = await answers(project.id);
    expect(got.pages[0].totals.total).toBe(first.length + second.length);
    expect(got).toEqual(await reference([first, second]));
  }

  it('counts each view once when another fold takes the same batches and newer ones first', async () => {
    const second = views(100, 6);
    await foldAround(
      views(300, 1),
      second,
      async (project, key) => {
        await store(project, second);
        await foldPending(storage, key, { repair: false });
      },
      0,
    );
  });

  it('counts each view once when views are ingested and the days rebuilt between the snapshot and the write', async () => {
    const second = views(100, 5);
    await foldAround(
      views(300, 2),
      second,
      async (project) => {
        await store(project, second);
        await rebuildProject({ storage, ids: analytics.ids }, project.id);
      },
      0,
    );
  });

  it('writes its snapshot’s batches and leaves the ones ingested meanwhile for the next fold', async () => {
    const second = views(200, 4);
    await foldAround(views(200, 3), second, (project) => store(project, second), 1);
  });
});
