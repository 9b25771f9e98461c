import type { Kysely } from 'kysely';
import type { Database } from '../../storage/schema.ts';
import { countedClass } from '../ingest/classify.ts';
import type { Dictionary } from '../ingest/dense-ids.ts';
import type { ClassCode } from '../model/class-codes.ts';
import { decodeDaySet } from '../model/day-set.ts';
import { dayOf, eventDay, splitRange } from '../model/days.ts';
import { decodePendingBatch, type CountedView } from '../model/pending-batch.ts';
import type { MarkdownRequest } from '../model/markdown-request.ts';
import type { Verification } from '../model/verification.ts';
import type { QueryCaches, QueryState } from './caches.ts';
import type { RangeIndex } from './range-index.ts';
import type { IndexedDay, SplitRanking, Sources } from './types.ts';

/** The user agents of agent ids, from the id cache or the database (which also fills the cache). */
export async function userAgents(trx: Kysely<Database>, dictionary: Dictionary, ids: Set<number>): Promise<Map<number, string>> {
  const agents = new Map<number, string>();
  for (const [agent, id] of dictionary.agents) if (ids.has(id)) agents.set(id, agent);
  const unknown = [...ids].filter((id) => !agents.has(id));
  for (let start = 0; start < unknown.length; start += 500) {
    const rows = await trx
      .selectFrom('analytics_agents')
      .select(['agent_id', 'user_agent'])
      .where('agent_id', 'in', unknown.slice(start, start + 500))
      .execute();
    for (const row of rows) {
      dictionary.learnAgent(row.user_agent, Number(row.agent_id));
      agents.set(Number(row.agent_id), row.user_agent);
    }
  }
  return agents;
}

/** The raw events of [from, to), found through the (project, UTC day) index; callers pick the columns. */
export function rawEventsIn(trx: Kysely<Database>, projectKey: number, from: number, to: number) {
  return trx
    .selectFrom('analytics_events')
    .where('project_key', '=', projectKey)
    .where(eventDay, '>=', dayOf(from))
    .where(eventDay, '<=', dayOf(to - 1))
    .where('at', '>=', from)
    .where('at', '<', to);
}

/** Counted views of [from, to) straight from the raw events (partial days, and rebuilds). */
export async function rawViews(trx: Kysely<Database>, dictionary: Dictionary, projectKey: number, from: number, to: number): Promise<CountedView[]> {
  const rows = await rawEventsIn(trx, projectKey, from, to).select(['at', 'path_id', 'agent_id', 'visitor_id', 'markdown', 'status', 'verification']).execute();
  const agents = await userAgents(trx, dictionary, new Set(rows.map((row) => Number(row.agent_id))));
  const views: CountedView[] = [];
  for (const row of rows) {
    const status = row.status === null ? null : Number(row.status);
    const classCode = countedClass(
      agents.get(Number(row.agent_id))!,
      Number(row.markdown) as MarkdownRequest,
      status,
      Number(row.verification) as Verification,
    );
    if (classCode !== null) views.push({ day: dayOf(Number(row.at)), pathId: Number(row.path_id), classCode, visitor: Number(row.visitor_id) });
  }
  return views;
}

/** Revisions of a project's day sets in [firstDay, endDay), keyed `day:class`. */
export async function dayRevisions(trx: Kysely<Database>, projectKey: number, firstDay: number, endDay: number): Promise<Map<string, number>> {
  const rows = await trx
    .selectFrom('analytics_day_sets')
    .select(['day', 'class', 'revision'])
    .where('project_key', '=', projectKey)
    .where('day', '>=', firstDay)
    .where('day', '<', endDay)
    .execute();
  return new Map(rows.map((row) => [`${row.day}:${row.class}`, Number(row.revision)]));
}

/** The day sets at `revisions`, decoding only those whose revision is not cached. */
export async function loadDays(trx: Kysely<Database>, caches: QueryCaches, projectKey: number, revisions: Map<string, number>): Promise<IndexedDay[]> {
  const days: IndexedDay[] = [];
  const stale: { day: number; classCode: ClassCode }[] = [];
  for (const [key, revision] of revisions) {
    const [day, classCode] = key.split(':').map(Number) as [number, ClassCode];
    const set = caches.cachedDay(`${projectKey}:${key}`, revision);
    if (set) days.push({ day, classCode, revision, set });
    else stale.push({ day, classCode });
  }
  for (let start = 0; start < stale.length; start += 50) {
    const part = stale.slice(start, start + 50);
    const wanted = new Set(part.map((entry) => `${entry.day}:${entry.classCode}`));
    const rows = await trx
      .selectFrom('analytics_day_sets')
      .select(['day', 'class', 'revision', 'data'])
      .where('project_key', '=', projectKey)
      .where('day', 'in', [...new Set(part.map((entry) => entry.day))])
      .execute();
    for (const row of rows) {
      if (!wanted.has(`${row.day}:${row.class}`)) continue;
      const set = decodeDaySet(row.data);
      caches.storeDay(`${projectKey}:${row.day}:${row.class}`, Number(row.revision), set);
      days.push({ day: Number(row.day), classCode: Number(row.class) as ClassCode, revision: Number(row.revision), set });
    }
  }
  return days;
}

/** Counted views of committed batches not yet folded, in [firstDay, endDay). */
export async function pendingViews(trx: Kysely<Database>, projectKey: number, firstDay: number, endDay: number): Promise<CountedView[]> {
  const pending = await trx.selectFrom('analytics_pending').select('tuples').where('project_key', '=', projectKey).execute();
  const views: CountedView[] = [];
  for (const batch of pending) for (const view of decodePendingBatch(batch.tuples)) if (view.day >= firstDay && view.day < endDay) views.push(view);
  return views;
}

/**
 * The range index when it serves [firstDay, endDay): it covers the days and no pending view falls in
 * them; otherwise null, and the index is asked to catch up.
 */
export async function freshIndex(trx: Kysely<Database>, state: QueryState, projectKey: number, firstDay: number, endDay: number): Promise<RangeIndex | null> {
  const index = state.caches.index(projectKey);
  const fresh = index !== undefined && index.covers(firstDay, endDay, await dayRevisions(trx, projectKey, firstDay, endDay));
  if (fresh && (await pendingViews(trx, projectKey, firstDay, endDay)).length === 0) return index;
  // Days older than the span are always counted from day sets; asking for a new index would not help.
  if (index === undefined || firstDay >= index.spanStart) state.signals.emit('index-stale', projectKey);
  return null;
}

/**
 * Unique visitors of whole days from the range index when it serves them (see `freshIndex`), else null.
 * Rows are ordered by their totals alone; `split` counts a row's human and AI visitors when it is shown.
 */
export async function indexedVisitors(trx: Kysely<Database>, state: QueryState, projectKey: number, from: number, to: number): Promise<SplitRanking | null> {
  const { firstDay, endDay, partial } = splitRange(from, to);
  if (partial.length > 0) return null;
  const index = await freshIndex(trx, state, projectKey, firstDay, endDay);
  return index ? { ...index.rankByTotal(firstDay, endDay), split: (row) => index.split(row, firstDay, endDay) } : null;
}

/** Reads the sources of [from, to) inside `trx`, decoding only day sets whose revision is not cached. */
export async function readSources(trx: Kysely<Database>, state: QueryState, projectKey: number, from: number, to: number): Promise<Sources> {
  const { firstDay, endDay, partial } = splitRange(from, to);
  const sources: Sources = { days: [], loose: [] };
  if (endDay > firstDay) {
    sources.days = await loadDays(trx, state.caches, projectKey, await dayRevisions(trx, projectKey, firstDay, endDay));
    sources.loose = await pendingViews(trx, projectKey, firstDay, endDay);
  }
  for (const [start, end] of partial) sources.loose.push(...(await rawViews(trx, state.ids, projectKey, start, end)));
  return sources;
}
