import { inSnapshot } from '../../storage/snapshot.ts';
import type { QueryState } from './caches.ts';
import { buildRangeIndex } from './range-index-build.ts';
import { dayRevisions, loadDays } from './read-sources.ts';

/**
 * Days a range index spans, back from the project's newest day set. Ranges that start earlier are
 * counted from the day sets directly; the index's memory grows with the entries of the span.
 */
export const indexSpanDays = 400;

/**
 * Rebuilds a project's range index from its day sets, read in one snapshot, so the index and the
 * revisions it records agree. The walk over the sets happens after that transaction, yielding to
 * the event loop as it goes.
 */
export async function refreshIndex(state: Pick<QueryState, 'storage' | 'caches'>, projectKey: number): Promise<void> {
  const { storage, caches } = state;
  const read = await inSnapshot(storage, async (trx) => {
    const bounds = await trx
      .selectFrom('analytics_day_sets')
      .select((eb) => [eb.fn.min('day').as('first'), eb.fn.max('day').as('last')])
      .where('project_key', '=', projectKey)
      .executeTakeFirstOrThrow();
    if (bounds.first === null || bounds.last === null) return null;
    const endDay = Number(bounds.last) + 1;
    const spanStart = Math.max(Number(bounds.first), endDay - indexSpanDays);
    return { spanStart, span: endDay - spanStart, days: await loadDays(trx, caches, projectKey, await dayRevisions(trx, projectKey, spanStart, endDay)) };
  });
  if (!read) return;
  caches.storeIndex(projectKey, await buildRangeIndex(read.days, read.spanStart, read.span));
}
