import type { Kysely } from 'kysely';
import type { Database } from '../../storage/schema.ts';
import { inSnapshot } from '../../storage/snapshot.ts';
import { decodeDaySet } from '../model/day-set.ts';
import type { QueryState } from './caches.ts';
import type { RangeIndex } from './range-index.ts';
import { buildRangeIndex } from './range-index-build.ts';
import { valueIndexKey, type ValueIndexes } from './value-index.ts';
import { encodedValuePages } from './value-pages.ts';

/**
 * A value is indexed when its pages hold at least this share of its property's stored pages over the span
 * (by encoded size): at most 1 / share values per property, and the values left are cheap to walk.
 */
const indexedShare = 1 / 20;

/** The revisions of the value pages of [firstDay, endDay), by day. */
async function pageRevisions(trx: Kysely<Database>, projectKey: number, firstDay: number, endDay: number): Promise<Map<number, number>> {
  const rows = await trx
    .selectFrom('analytics_value_page_days')
    .select(['day', 'revision'])
    .where('project_key', '=', projectKey)
    .where('day', '>=', firstDay)
    .where('day', '<', endDay)
    .execute();
  return new Map(rows.map((row) => [Number(row.day), Number(row.revision)]));
}

const sameRevisions = (a: Map<number, number>, b: Map<number, number>) => a.size === b.size && [...a].every(([day, revision]) => b.get(day) === revision);

/**
 * Rebuilds a project's value indexes from the value pages of the newest `spanDays` days that have them,
 * when those pages changed since the last build: the values whose pages hold at least `indexedShare`
 * of their property's, each read in one snapshot with the revisions and built after it. Run by the background loop after the value pages.
 */
export async function refreshValueIndexes(state: Pick<QueryState, 'storage' | 'caches'>, projectKey: number, spanDays: number): Promise<void> {
  const { storage, caches } = state;
  const read = await inSnapshot(storage, async (trx) => {
    const { last } = await trx
      .selectFrom('analytics_value_page_days')
      .select((eb) => eb.fn.max('day').as('last'))
      .where('project_key', '=', projectKey)
      .executeTakeFirstOrThrow();
    if (last === null) return null;
    const endDay = Number(last) + 1;
    const revisions = await pageRevisions(trx, projectKey, endDay - spanDays, endDay);
    const previous = caches.valueIndexes<ValueIndexes>(projectKey);
    if (previous !== undefined && sameRevisions(previous.revisions, revisions)) return null;
    const spanStart = Math.min(...revisions.keys());
    const sizes = await trx
      .selectFrom('analytics_value_pages')
      .select(['property', 'value_key', (eb) => eb.fn.sum<number>(eb.fn('length', ['data'])).as('bytes')])
      .where('project_key', '=', projectKey)
      .where('day', '>=', spanStart)
      .where('day', '<', endDay)
      .groupBy(['property', 'value_key'])
      .execute();
    const totals = new Map<number, number>();
    for (const row of sizes) totals.set(Number(row.property), (totals.get(Number(row.property)) ?? 0) + Number(row.bytes));
    const picked = sizes.filter((row) => Number(row.bytes) >= indexedShare * totals.get(Number(row.property))!);
    const values = [];
    for (const row of picked) {
      const property = Number(row.property);
      const valueKey = Number(row.value_key);
      values.push({
        key: valueIndexKey(property, valueKey),
        pages: await encodedValuePages(trx, projectKey, property, valueKey, spanStart, endDay, revisions),
      });
    }
    return { revisions, spanStart, span: endDay - spanStart, values };
  });
  if (read === null) return;
  const indexes = new Map<string, RangeIndex>();
  // One value's pages decoded at a time, just before its index is built: decoded, all the values' pages together were
  // the largest part of the memory the server's work after a load peaked at.
  for (const { key, pages } of read.values) {
    const days = pages.map(({ day, classCode, revision, data }) => ({ day, classCode, revision, set: decodeDaySet(data) }));
    indexes.set(key, await buildRangeIndex(days, read.spanStart, read.span));
  }
  caches.storeValueIndexes<ValueIndexes>(projectKey, { revisions: read.revisions, indexes });
}
