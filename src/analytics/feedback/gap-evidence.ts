import type { Kysely } from 'kysely';
import type { Database } from '../../storage/schema.ts';
import { countedClass } from '../ingest/classify.ts';
import type { IngestState } from '../ingest/ingest.ts';
import { ClassCode } from '../model/class-codes.ts';
import { eventDay } from '../model/days.ts';
import type { MarkdownRequest } from '../model/markdown-request.ts';
import type { Verification } from '../model/verification.ts';
import { failuresOver, GapDaySource, type FailureEntry, type FailureRow, type RawFailures } from './gap-days.ts';
import { feedbackProjectKey } from './feedback-query.ts';
import { interactionClasses } from './kinds.ts';

/** Who sent a piece of evidence: a dense visitor id (the views' own) and its class, null when unknown. */
export interface EvidenceSender {
  visitorId: number;
  visitorClass: 'human' | 'ai' | null;
}

/** One "not helpful" feedback item (thumbs down). */
export interface UnhelpfulFeedback {
  id: string;
  path: string;
  comment: string;
  sender: EvidenceSender | null;
  at: number;
}

/** What analytics holds of a range's failures, as docs gaps read it. */
export interface GapEvidence {
  /** Searches that found nothing, per query. */
  searches: FailureEntry[];
  feedback: UnhelpfulFeedback[];
  /** Requests answered 404, per path. */
  notFound: FailureEntry[];
}

/** Epoch milliseconds: `from` inclusive, `to` exclusive. */
export interface EvidenceRange {
  from: number;
  to: number;
}

const interactionClass = (code: number | null) => {
  const name = code === null ? null : interactionClasses[code];
  return name === 'human' || name === 'ai' ? name : null;
};

function sender(visitorId: number | string | null, visitorClass: number | null): EvidenceSender | null {
  return visitorId === null ? null : { visitorId: Number(visitorId), visitorClass: interactionClass(visitorClass) };
}

const excludedClass = interactionClasses.indexOf('excluded');

/** Searches without hits per query and sender over [from, to); excluded senders count nowhere. */
const noHitSearches: RawFailures = async (db, projectKey, from, to) => {
  const rows = await db
    .selectFrom('analytics_searches')
    .select((eb) => [
      'query',
      'visitor_id',
      'visitor_class',
      eb.fn.countAll<number>().as('count'),
      eb.fn.min<number>('at').as('first'),
      eb.fn.max<number>('at').as('last'),
    ])
    .where('project_key', '=', projectKey)
    .where('at', '>=', from)
    .where('at', '<', to)
    .where('hits', '=', 0)
    .groupBy(['query', 'visitor_id', 'visitor_class', eventDay])
    .execute();
  const result: FailureRow[] = [];
  for (const row of rows) {
    const code = row.visitor_class === null ? null : Number(row.visitor_class);
    if (code === excludedClass) continue;
    const from = sender(row.visitor_id, code);
    result.push({
      unit: row.query,
      visitor: from?.visitorId ?? null,
      visitorClass: from?.visitorClass ?? null,
      count: Number(row.count),
      first: Number(row.first),
      last: Number(row.last),
    });
  }
  return result;
};

function unhelpfulFeedback(db: Kysely<Database>, projectKey: number, range: EvidenceRange) {
  return db
    .selectFrom('analytics_feedback')
    .select(['id', 'path', 'comment', 'visitor_id', 'visitor_class', 'at'])
    .where('project_key', '=', projectKey)
    .where('at', '>=', range.from)
    .where('at', '<', range.to)
    .where('helpful', '=', 0)
    .execute();
}

/** 404s per page, visitor and user agent; the class is the user agent's, as a view's would be. */
const notFoundRequests: RawFailures = async (db, projectKey, from, to) => {
  const rows = await db
    .selectFrom('analytics_events')
    .select((eb) => [
      'path_id',
      'agent_id',
      'visitor_id',
      'markdown',
      'verification',
      eb.fn.countAll<number>().as('count'),
      eb.fn.min<number>('at').as('first'),
      eb.fn.max<number>('at').as('last'),
    ])
    .where('project_key', '=', projectKey)
    .where('at', '>=', from)
    .where('at', '<', to)
    .where('status', '=', 404)
    .groupBy(['path_id', 'agent_id', 'visitor_id', 'markdown', 'verification', eventDay])
    .execute();
  if (rows.length === 0) return [];
  const pathIds = [...new Set(rows.map((row) => Number(row.path_id)))];
  const agentIds = [...new Set(rows.map((row) => Number(row.agent_id)))];
  const [paths, agents] = await Promise.all([
    db.selectFrom('analytics_paths').select(['path_id', 'path']).where('project_key', '=', projectKey).where('path_id', 'in', pathIds).execute(),
    db.selectFrom('analytics_agents').select(['agent_id', 'user_agent']).where('agent_id', 'in', agentIds).execute(),
  ]);
  const pathOf = new Map(paths.map((row) => [Number(row.path_id), row.path]));
  const agentOf = new Map(agents.map((row) => [Number(row.agent_id), row.user_agent]));
  const result: FailureRow[] = [];
  for (const row of rows) {
    const path = pathOf.get(Number(row.path_id));
    if (path === undefined) continue;
    // Classified as if the page had been found: who asked, not whether it counted as a view (a spoofed agent counts nowhere).
    const code = countedClass(agentOf.get(Number(row.agent_id)) ?? '', Number(row.markdown) as MarkdownRequest, 200, Number(row.verification) as Verification);
    if (code === null) continue;
    const visitorClass = code === ClassCode.ai ? 'ai' : 'human';
    result.push({
      unit: path,
      visitor: Number(row.visitor_id),
      visitorClass,
      count: Number(row.count),
      first: Number(row.first),
      last: Number(row.last),
    });
  }
  return result;
};

/**
 * A project's failures over a range, for docs gaps: searches with no hits (tracker, discovery and MCP
 * searches alike), feedback marked not helpful, and requests answered 404 (logs, drains, the proxy and
 * the docs surface), each with its senders' dense visitor ids, the same id space as the views'.
 * Searches and 404s come per query and per path, whole days from their kept rows (gap-days.ts).
 * Excluded clients count nowhere. An unknown project has none.
 */
export async function gapEvidence(analytics: Pick<IngestState, 'storage' | 'ids'>, projectId: string, range: EvidenceRange): Promise<GapEvidence> {
  const projectKey = await feedbackProjectKey(analytics, projectId);
  if (projectKey === undefined) return { searches: [], feedback: [], notFound: [] };
  const { storage } = analytics;
  const [searches, feedback, notFound] = await Promise.all([
    failuresOver(storage, GapDaySource.searches, projectKey, range, noHitSearches),
    unhelpfulFeedback(storage.db, projectKey, range),
    failuresOver(storage, GapDaySource.notFound, projectKey, range, notFoundRequests),
  ]);
  return {
    searches,
    feedback: feedback
      .filter((row) => row.visitor_class === null || Number(row.visitor_class) !== excludedClass)
      .map((row) => ({
        id: row.id,
        path: row.path,
        comment: row.comment,
        sender: sender(row.visitor_id, row.visitor_class === null ? null : Number(row.visitor_class)),
        at: Number(row.at),
      })),
    notFound,
  };
}

/**
 * A mark of a project's gap evidence kept in analytics: searches without hits, 404s, unhelpful feedback,
 * and the days of evidence kept. It changes whenever new evidence arrives or kept days go (a purge, a
 * rebuild); equal marks mean there is nothing new to group. A few small aggregate reads.
 */
export async function gapEvidenceMark(analytics: Pick<IngestState, 'storage' | 'ids'>, projectId: string): Promise<string> {
  const projectKey = await feedbackProjectKey(analytics, projectId);
  if (projectKey === undefined) return 'none';
  const { db } = analytics.storage;
  const [searches, notFound, feedback, kept] = await Promise.all([
    db
      .selectFrom('analytics_search_totals')
      .select((eb) => eb.fn.sum<number>('no_hits').as('count'))
      .where('project_key', '=', projectKey)
      .executeTakeFirst(),
    db
      .selectFrom('analytics_not_found_days')
      .select((eb) => eb.fn.sum<number>('failures').as('count'))
      .where('project_key', '=', projectKey)
      .executeTakeFirst(),
    db
      .selectFrom('analytics_feedback')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .where('project_key', '=', projectKey)
      .where('helpful', '=', 0)
      .executeTakeFirst(),
    db
      .selectFrom('analytics_gap_days')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .where('project_key', '=', projectKey)
      .executeTakeFirst(),
  ]);
  return [searches, notFound, feedback, kept].map((row) => Number(row?.count ?? 0)).join(':');
}

/**
 * The write side of `gapEvidence`: computes and stores the kept days of searches without hits and of
 * 404s over the range that are missing or stale (gap-days.ts), so the list's reads decode them
 * instead of reading every failure. The docs gaps loop runs it.
 */
export async function keepGapEvidence(analytics: Pick<IngestState, 'storage' | 'ids'>, projectId: string, range: EvidenceRange): Promise<void> {
  const projectKey = await feedbackProjectKey(analytics, projectId);
  if (projectKey === undefined) return;
  await failuresOver(analytics.storage, GapDaySource.searches, projectKey, range, noHitSearches, 'keep');
  await failuresOver(analytics.storage, GapDaySource.notFound, projectKey, range, notFoundRequests, 'keep');
}
