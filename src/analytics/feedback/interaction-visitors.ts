import type { Expression, Kysely, SqlBool } from 'kysely';
import type { Database } from '../../storage/schema.ts';
import type { IngestState } from '../ingest/ingest.ts';
import { interactionClassCode } from './kinds.ts';

/** Which searches and feedback items count. An omitted list takes every one of its kind in the range; an empty list none. */
export interface InteractionVisitorsRequest {
  /** Epoch milliseconds: `from` inclusive, `to` exclusive. */
  range: { from: number; to: number };
  /** Normalized search queries (as `normalizeQuery` in validate.ts makes them). */
  queries?: string[];
  /** Only searches that found nothing (default false: every search of the queries). */
  noHitsOnly?: boolean;
  /** Feedback item ids (`fbk_…`). */
  feedbackIds?: string[];
}

/**
 * Distinct senders: `human` and `ai` by their class; `total` counts each visitor once, whatever
 * its classes, including those whose events named no user agent; excluded clients count nowhere.
 */
export interface InteractionVisitorCounts {
  human: number;
  ai: number;
  total: number;
}

const human = interactionClassCode('human');
const ai = interactionClassCode('ai');
const excluded = interactionClassCode('excluded');

/** The visitor columns of a project's searches or feedback items over the range, those stored with a visitor. */
function sendersIn(db: Kysely<Database>, table: 'analytics_searches' | 'analytics_feedback', projectKey: number, range: InteractionVisitorsRequest['range']) {
  return db
    .selectFrom(table)
    .select(['visitor_id', 'visitor_class'])
    .where('project_key', '=', projectKey)
    .where('at', '>=', range.from)
    .where('at', '<', range.to)
    .where('visitor_id', 'is not', null);
}

/** The visitor columns of the searches the request takes, or null when it takes none. */
function searches(db: Kysely<Database>, projectKey: number, request: InteractionVisitorsRequest) {
  if (request.queries?.length === 0) return null;
  let query = sendersIn(db, 'analytics_searches', projectKey, request.range);
  if (request.queries !== undefined) query = query.where('analytics_searches.query', 'in', request.queries);
  if (request.noHitsOnly) query = query.where('analytics_searches.hits', '=', 0);
  return query;
}

/** The visitor columns of the feedback items the request takes, or null when it takes none. */
function feedback(db: Kysely<Database>, projectKey: number, request: InteractionVisitorsRequest) {
  if (request.feedbackIds?.length === 0) return null;
  let query = sendersIn(db, 'analytics_feedback', projectKey, request.range);
  if (request.feedbackIds !== undefined) query = query.where('analytics_feedback.id', 'in', request.feedbackIds);
  return query;
}

/**
 * Distinct visitors (human, AI, total) who sent the searches and feedback items a request takes over
 * its range: what a docs gap shows as its `visitors`. Events stored without a visitor count nowhere.
 * `projectKey` is `feedbackProjectKey`'s (feedback-query.ts). Exact, in one statement.
 */
export async function interactionVisitors(
  analytics: Pick<IngestState, 'storage'>,
  projectKey: number,
  request: InteractionVisitorsRequest,
): Promise<InteractionVisitorCounts> {
  const { db } = analytics.storage;
  const parts = [searches(db, projectKey, request), feedback(db, projectKey, request)].filter((part) => part !== null);
  if (parts.length === 0) return { human: 0, ai: 0, total: 0 };
  const senders = parts.length === 2 ? parts[0].unionAll(parts[1]) : parts[0];
  const row = await db
    .selectFrom(senders.as('senders'))
    .select((eb) => {
      const distinctOf = (when: Expression<SqlBool>) => eb.fn.count<number>(eb.case().when(when).then(eb.ref('visitor_id')).end()).distinct();
      return [
        distinctOf(eb('visitor_class', '=', human)).as('human'),
        distinctOf(eb('visitor_class', '=', ai)).as('ai'),
        distinctOf(eb.or([eb('visitor_class', 'is', null), eb('visitor_class', '<>', excluded)])).as('total'),
      ];
    })
    .executeTakeFirstOrThrow();
  return { human: Number(row.human), ai: Number(row.ai), total: Number(row.total) };
}
