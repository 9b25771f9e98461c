import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { InteractionBuffer } from '../../src/analytics/capture/interaction-buffer.ts';
import { feedbackProjectKey } from '../../src/analytics/feedback/feedback-query.ts';
import * as interactions from '../../src/analytics/feedback/interactions.ts';
import { prepareInteraction } from '../../src/analytics/feedback/validate.ts';
import { createAnalyticsState } from '../../src/analytics/state.ts';
import type { Storage } from '../../src/storage/dialect.ts';
import { createTenant } from '../support/app.ts';
import { testDatabases } from '../support/storage.ts';

const search = (query: string) => prepareInteraction({ kind: 'search', query, hits: 1 }, Date.now());

describe.each(testDatabases)('the buffer of recorded searches and feedback on $dialect', (database) => {
  let storage: Storage;

  beforeAll(async () => {
    storage = await database.open();
  });
  afterAll(async () => {
    await storage.close();
  });

  it('writes the searches of many calls in one transaction per project, and all of them by flush', async () => {
    const state = createAnalyticsState(storage);
    const buffer = new InteractionBuffer(state, { flushMilliseconds: 60_000 });
    const { project } = await createTenant(storage);
    const store = vi.spyOn(interactions, 'storeInteractions');
    const stored = [1, 2, 3, 4, 5].map((round) => buffer.add(project, [search(`query ${round}`)]));
    await buffer.flush();
    expect(await Promise.all(stored)).toEqual([1, 1, 1, 1, 1]);
    expect(store).toHaveBeenCalledTimes(1);
    store.mockRestore();
    const key = await feedbackProjectKey(state, project.id);
    const rows = await storage.db.selectFrom('analytics_searches').select('query').where('project_key', '=', key!).execute();
    expect(rows).toHaveLength(5);
  });

  it('drops what exceeds its bound, logged, and never rejects', async () => {
    const warnings: unknown[] = [];
    const state = createAnalyticsState(storage, undefined, { warn: (...items: unknown[]) => void warnings.push(items) });
    const buffer = new InteractionBuffer(state, { maxBuffered: 2, flushMilliseconds: 60_000 });
    const { project } = await createTenant(storage);
    const kept = buffer.add(project, [search('one'), search('two')]);
    expect(await buffer.add(project, [search('three')])).toBe(0);
    expect(warnings).toHaveLength(1);
    await buffer.flush();
    expect(await kept).toBe(2);
  });
});
