import { sql, type Kysely } from 'kysely';
import type { Storage } from '../../storage/dialect.ts';
import type { Database } from '../../storage/schema.ts';
import { inSnapshot } from '../../storage/snapshot.ts';
import type { AnalyticsFeedbackRow } from '../../storage/tables/feedback.ts';
import { existingProjectKey } from '../ingest/dense-ids.ts';
import type { IngestState } from '../ingest/ingest.ts';
import { splitRange } from '../model/days.ts';
import { feedbackSources, feedbackStatuses, sourceCode, type FeedbackSource, type FeedbackStatus } from './kinds.ts';

/**
 * The key the feedback, search and status functions take for a project, or undefined when the
 * project has recorded nothing yet (so it has no feedback or searches either).
 */
export function feedbackProjectKey(analytics: Pick<IngestState, 'storage' | 'ids'>, projectId: string): Promise<number | undefined> {
  return existingProjectKey(analytics.storage.db, analytics.ids, projectId);
}

/** A feedback item as the API shows it; absent optional fields are left out. */
export interface FeedbackItem {
  id: string;
  path: string;
  comment: string;
  createdAt: string;
  source: FeedbackSource;
  status: FeedbackStatus;
  helpful?: boolean;
  contact?: string;
  code?: string;
  filename?: string;
  lang?: string;
}

export function itemOf(row: AnalyticsFeedbackRow): FeedbackItem {
  const item: FeedbackItem = {
    id: row.id,
    path: row.path,
    comment: row.comment,
    createdAt: new Date(Number(row.at)).toISOString(),
    source: feedbackSources[row.source],
    status: feedbackStatuses[row.status],
  };
  if (row.helpful !== null) item.helpful = Boolean(row.helpful);
  for (const name of ['contact', 'code', 'filename', 'lang'] as const) if (row[name] !== null) item[name] = row[name];
  return item;
}

export interface FeedbackFilter {
  from: number;
  to: number;
  /** Codes of the sources and statuses to keep; undefined keeps all. */
  sources?: number[];
  statuses?: number[];
}

const all = (names: readonly string[]) => names.map((_, code) => code);

/**
 * Feedback items of [from, to), newest first (then by id, descending), after `cursor` (the last
 * item's `[at, id]`). The index is ordered by status, source and time, so each (status, source) pair
 * of the filter is one short index walk of at most `limit + 1` rows, and the walks are merged here:
 * the first page costs the same with a million items in the range as with a hundred.
 */
export async function feedbackList(
  storage: Storage,
  projectKey: number,
  filter: FeedbackFilter,
  limit: number,
  cursor: [number, string] | null,
): Promise<{ items: AnalyticsFeedbackRow[]; hasMore: boolean }> {
  const rows = await inSnapshot(storage, async (trx) => {
    const found: AnalyticsFeedbackRow[] = [];
    for (const status of filter.statuses ?? all(feedbackStatuses)) {
      for (const source of filter.sources ?? all(feedbackSources)) {
        let query = trx
          .selectFrom('analytics_feedback')
          .selectAll()
          .where('project_key', '=', projectKey)
          .where('status', '=', status)
          .where('source', '=', source)
          .where('at', '>=', filter.from)
          .where('at', '<', filter.to);
        if (cursor) query = query.where((eb) => eb.or([eb('at', '<', cursor[0]), eb.and([eb('at', '=', cursor[0]), eb('id', '<', cursor[1])])]));
        found.push(
          ...(await query
            .orderBy('at', 'desc')
            .orderBy('id', 'desc')
            .limit(limit + 1)
            .execute()),
        );
      }
    }
    return found;
  });
  rows.sort((a, b) => Number(b.at) - Number(a.at) || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
  return { items: rows.slice(0, limit), hasMore: rows.length > limit };
}

export interface PageFeedback {
  path: string;
  thumbsUp: number;
  thumbsDown: number;
  code: number;
  total: number;
}

function pageRows(trx: Kysely<Database>, projectKey: number, filter: FeedbackFilter) {
  const { firstDay, endDay, partial } = splitRange(filter.from, filter.to);
  const code = sourceCode('code_snippet');
  let days = trx
    .selectFrom('analytics_feedback_days')
    .select(['path', 'up', 'down', sql<number>`case when source = ${code} then total else 0 end`.as('code'), 'total'])
    .where('project_key', '=', projectKey)
    .where('day', '>=', firstDay)
    .where('day', '<', endDay);
  if (filter.sources) days = days.where('source', 'in', filter.sources);
  if (filter.statuses) days = days.where('status', 'in', filter.statuses);
  if (partial.length === 0) return days;
  // Partial first and last days are counted from the items themselves.
  let raw = trx
    .selectFrom('analytics_feedback')
    .select([
      'path',
      sql<number>`case when helpful = 1 then 1 else 0 end`.as('up'),
      sql<number>`case when helpful = 0 then 1 else 0 end`.as('down'),
      sql<number>`case when source = ${code} then 1 else 0 end`.as('code'),
      sql<number>`1`.as('total'),
    ])
    .where('project_key', '=', projectKey)
    .where((eb) => eb.or(partial.map(([start, end]) => eb.and([eb('at', '>=', start), eb('at', '<', end)]))));
  if (filter.sources) raw = raw.where('source', 'in', filter.sources);
  if (filter.statuses) raw = raw.where('status', 'in', filter.statuses);
  return days.unionAll(raw);
}

/**
 * Per page: thumbs up, thumbs down, code-snippet feedback and all feedback of the filter, ordered by
 * `total` descending, then path by code point (the dialect's code-point collation: the same pages on
 * either database whatever its own collation, in the visitors ranking's order). Whole days are summed
 * from the per-day counts (one row per day, page, source and status), so the cost follows the pages
 * with feedback, not the number of items.
 */
export async function feedbackByPage(
  storage: Storage,
  projectKey: number,
  filter: FeedbackFilter,
  limit: number,
  offset: number,
): Promise<{ pages: PageFeedback[]; hasMore: boolean }> {
  const rows = await inSnapshot(storage, (trx) =>
    trx
      .selectFrom(pageRows(trx, projectKey, filter).as('counts'))
      .select((eb) => [
        'path',
        eb.fn.sum<number>('up').as('thumbsUp'),
        eb.fn.sum<number>('down').as('thumbsDown'),
        eb.fn.sum<number>('code').as('code'),
        eb.fn.sum<number>('total').as('total'),
      ])
      .groupBy('path')
      .having((eb) => eb.fn.sum('total'), '>', 0)
      .orderBy('total', 'desc')
      .orderBy(sql`path collate ${sql.raw(storage.profile.codePointCollation)}`)
      .limit(limit + 1)
      .offset(offset)
      .execute(),
  );
  const pages = rows.map((row) => ({
    path: row.path,
    thumbsUp: Number(row.thumbsUp),
    thumbsDown: Number(row.thumbsDown),
    code: Number(row.code),
    total: Number(row.total),
  }));
  return { pages: pages.slice(0, limit), hasMore: pages.length > limit };
}
