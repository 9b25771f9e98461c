import type { Kysely } from 'kysely';
import { newId } from '../../lib/ids.ts';
import type { Database } from '../../storage/schema.ts';
import type { TableWrites } from '../../storage/statistics.ts';
import { dayOf } from '../model/days.ts';
import { statusCode } from './kinds.ts';
import type { PreparedFeedback, PreparedInteraction } from './validate.ts';
import { noVisitor, type VisitorColumns } from './visitor.ts';

/** Changes to one page's counts: a key of `analytics_feedback_days` and what to add to it (negative to take away). */
export interface FeedbackDelta {
  day: number;
  path: string;
  source: number;
  status: number;
  total: number;
  up: number;
  down: number;
}

/** The delta one item makes to its page's counts (`sign` -1 takes it away, when its status changes). */
export function deltaOf(item: { at: number; path: string; source: number; status: number; helpful: boolean | number | null }, sign: 1 | -1): FeedbackDelta {
  const helpful = item.helpful === null ? null : Boolean(item.helpful);
  return {
    day: dayOf(item.at),
    path: item.path,
    source: item.source,
    status: item.status,
    total: sign,
    up: helpful === true ? sign : 0,
    down: helpful === false ? sign : 0,
  };
}

/**
 * Adds deltas to the per-day counts, merged per key and applied in key order, so concurrent writers
 * on PostgreSQL take row locks in one order and cannot deadlock each other. Returns the rows written.
 */
export async function applyFeedbackDeltas(trx: Kysely<Database>, projectKey: number, deltas: FeedbackDelta[]): Promise<number> {
  const merged = new Map<string, FeedbackDelta>();
  for (const delta of deltas) {
    const key = `${delta.day}\u0000${delta.path}\u0000${delta.source}\u0000${delta.status}`;
    const known = merged.get(key);
    if (known) {
      known.total += delta.total;
      known.up += delta.up;
      known.down += delta.down;
    } else merged.set(key, { ...delta });
  }
  const rows = [...merged.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, delta]) => ({ project_key: projectKey, ...delta }));
  for (let start = 0; start < rows.length; start += 500) {
    await trx
      .insertInto('analytics_feedback_days')
      .values(rows.slice(start, start + 500))
      .onConflict((conflict) =>
        conflict.columns(['project_key', 'day', 'path', 'source', 'status']).doUpdateSet((eb) => ({
          total: eb('analytics_feedback_days.total', '+', eb.ref('excluded.total')),
          up: eb('analytics_feedback_days.up', '+', eb.ref('excluded.up')),
          down: eb('analytics_feedback_days.down', '+', eb.ref('excluded.down')),
        })),
      )
      .execute();
  }
  return rows.length;
}

/**
 * Stores feedback items (status `pending`) with their senders' columns (visitor.ts; none when absent
 * from `visitors`) and counts them on their pages, inside `trx`; returns the rows written.
 */
export async function storeFeedback(
  trx: Kysely<Database>,
  projectKey: number,
  items: PreparedFeedback[],
  visitors: ReadonlyMap<PreparedInteraction, VisitorColumns>,
): Promise<TableWrites> {
  if (items.length === 0) return {};
  const pending = statusCode('pending');
  const rows = items.map((item) => ({
    id: newId('fbk'),
    project_key: projectKey,
    at: item.at,
    path: item.path,
    source: item.source,
    status: pending,
    helpful: item.helpful === null ? null : item.helpful ? 1 : 0,
    comment: item.comment,
    contact: item.contact,
    code: item.code,
    filename: item.filename,
    lang: item.lang,
    ...(visitors.get(item) ?? noVisitor),
  }));
  for (let start = 0; start < rows.length; start += 500)
    await trx
      .insertInto('analytics_feedback')
      .values(rows.slice(start, start + 500))
      .execute();
  const days = await applyFeedbackDeltas(
    trx,
    projectKey,
    items.map((item) => deltaOf({ ...item, status: pending }, 1)),
  );
  return { analytics_feedback: rows.length, analytics_feedback_days: days };
}
