import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBackgroundLoop } from '../../src/analytics/fold/background.ts';
import { existingProjectKey } from '../../src/analytics/ingest/dense-ids.ts';
import { ingest } from '../support/ingest.ts';
import { createAnalyticsState, type AnalyticsState } from '../../src/analytics/state.ts';
import type { Storage } from '../../src/storage/dialect.ts';
import { createTenant } from '../support/app.ts';
import { testDatabases } from '../support/storage.ts';

const browser = 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0';
const sleep = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds));
const writerTasks = new URL('../storage/support/write-tasks.ts', import.meta.url);

/** The background loop's range-index rebuilds, on SQLite, whose folds run on the writing thread. */
describe('range index rebuilds in the background loop', () => {
  let storage: Storage;
  let state: AnalyticsState;
  beforeAll(async () => {
    storage = await testDatabases.find((database) => database.dialect === 'sqlite')!.open();
    state = createAnalyticsState(storage);
  });
  afterAll(async () => {
    await storage.close();
  });

  it('wait for commits to stop, not only folds, and then follow', async () => {
    const { project } = await createTenant(storage);
    let sent = 0;
    const send = async () => {
      const at = Date.now() - 3_600_000;
      const events = Array.from({ length: 5 }, (_, index) => ({
        timestamp: at + index,
        path: `/page-${sent % 7}`,
        visitorId: `v${sent++}`,
        userAgent: browser,
      }));
      expect((await ingest(state, project, events)).accepted).toBe(5);
    };
    const loop = startBackgroundLoop(state, { logger: pino({ level: 'silent' }), retentionDays: 0 });
    try {
      await send();
      const key = (await existingProjectKey(storage.db, state.ids, project.id))!;
      const waitForIndex = async (other: unknown, seconds: number) => {
        const started = Date.now();
        while (state.caches.index(key) === other && Date.now() - started < seconds * 1000) await sleep(25);
        return state.caches.index(key);
      };
      // As a query finding no index does (the loop's first start may fold this view in its reclassification).
      state.signals.emit('index-stale', key);
      const first = await waitForIndex(undefined, 10);
      expect(first).toBeDefined();

      // A load: a commit every 100 ms for 3.5 s. Half a second in, the writing thread is busy for 1.8 s, so
      // folds stop for longer than the quiet period while commits go on.
      const load = (async () => {
        for (const started = Date.now(); Date.now() - started < 3_500;) {
          await send();
          await sleep(100);
        }
      })();
      await sleep(500);
      const busy = storage.writer!.run(writerTasks, 'occupy', [1_800]);
      let rebuiltDuringLoad = false;
      const watching = (async () => {
        let done = false;
        void load.then(() => (done = true));
        while (!done) {
          if (state.caches.index(key) !== first) rebuiltDuringLoad = true;
          await sleep(20);
        }
      })();
      await Promise.all([load, busy, watching]);
      expect(rebuiltDuringLoad).toBe(false);

      // Once commits stop, the index follows within the quiet period (and a fold).
      const after = await waitForIndex(first, 10);
      expect(after).not.toBe(first);
    } finally {
      await loop.stop();
    }
  });
});
