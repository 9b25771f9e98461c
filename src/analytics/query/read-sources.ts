import { sql, type Kysely } from 'kysely';
import type { DialectProfile } from '../../storage/dialect.ts';
import type { Database } from '../../storage/schema.ts';
import { agentKind, classCodes, classify, type AgentKind } from '../ingest/classify.ts';
import { decodeDaySet } from '../model/day-set.ts';
import { decodeTuples, type Tuple } from '../model/pending-batch.ts';
import type { IndexedDay } from './range-index.ts';
import type { Ranking } from './exact-counts.ts';
import type { Engine } from './caches.ts';
import { counts } from '../ingest/validate.ts';
import { dayMs, dayOf } from '../model/days.ts';

/** Everything a query counts, read in one snapshot: whole-day sets plus loose views (pending or partial-day). */
export interface Sources {
  days: IndexedDay[];
  loose: Tuple[];
}

/** The isolation that makes several statements see one snapshot; a SQLite transaction already does. */
export const snapshotIsolation: Record<DialectProfile['name'], 'repeatable read' | null> = { sqlite: null, postgres: 'repeatable read' };

/** Splits [from, to) into whole UTC days and the partial pieces at either end. */
export function splitRange(from: number, to: number): { firstDay: number; endDay: number; partial: [number, number][] } {
  const firstDay = Math.ceil(from / dayMs);
  const endDay = Math.floor(to / dayMs);
  if (firstDay >= endDay) return { firstDay: 0, endDay: 0, partial: [[from, to]] };
  const partial: [number, number][] = [];
  if (from < firstDay * dayMs) partial.push([from, firstDay * dayMs]);
  if (to > endDay * dayMs) partial.push([endDay * dayMs, to]);
  return { firstDay, endDay, partial };
}

async function agentKinds(trx: Kysely<Database>, engine: Engine, ids: Set<number>): Promise<Map<number, AgentKind>> {
  const kinds = new Map<number, AgentKind>();
  const unknown: number[] = [];
  for (const [agent, id] of engine.dictionary.agents) if (ids.has(id)) kinds.set(id, agentKind(agent));
  for (const id of ids) if (!kinds.has(id)) unknown.push(id);
  for (let start = 0; start < unknown.length; start += 500) {
    const rows = await trx.selectFrom('analytics_agents').select(['agent_id', 'user_agent']).where('agent_id', 'in', unknown.slice(start, start + 500)).execute();
    for (const row of rows) {
      engine.dictionary.agents.set(row.user_agent, Number(row.agent_id));
      kinds.set(Number(row.agent_id), agentKind(row.user_agent));
    }
  }
  return kinds;
}

/** The UTC day of a raw event, spelled as the `analytics_events_day` index spells it so the index serves the search. */
export const eventDay = sql<number>`at / ${sql.lit(dayMs)}`;

/** Counted views of [from, to) straight from the raw events (used for partial days). */
export async function rawViews(trx: Kysely<Database>, engine: Engine, projectKey: number, from: number, to: number): Promise<Tuple[]> {
  const rows = await trx
    .selectFrom('analytics_events')
    .select(['at', 'path_id', 'agent_id', 'visitor_id', 'markdown', 'status'])
    .where('project_key', '=', projectKey)
    .where(eventDay, '>=', dayOf(from))
    .where(eventDay, '<=', dayOf(to - 1))
    .where('at', '>=', from)
    .where('at', '<', to)
    .execute();
  const kinds = await agentKinds(trx, engine, new Set(rows.map((row) => Number(row.agent_id))));
  const tuples: Tuple[] = [];
  for (const row of rows) {
    if (!counts(row.status === null ? null : Number(row.status))) continue;
    const viewClass = classify(kinds.get(Number(row.agent_id))!, Number(row.markdown) === 1);
    if (viewClass === 'excluded') continue;
    tuples.push({ day: dayOf(Number(row.at)), pathId: Number(row.path_id), classCode: classCodes[viewClass], visitor: Number(row.visitor_id) });
  }
  return tuples;
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
export async function loadDays(trx: Kysely<Database>, engine: Engine, projectKey: number, revisions: Map<string, number>): Promise<IndexedDay[]> {
  const days: IndexedDay[] = [];
  const stale: { day: number; classCode: number }[] = [];
  for (const [key, revision] of revisions) {
    const [day, classCode] = key.split(':').map(Number);
    const set = engine.cachedDay(`${projectKey}:${key}`, revision);
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
      engine.storeDay(`${projectKey}:${row.day}:${row.class}`, Number(row.revision), set);
      days.push({ day: Number(row.day), classCode: Number(row.class), revision: Number(row.revision), set });
    }
  }
  return days;
}

/** Counted views of committed batches not yet folded, in [firstDay, endDay). */
export async function pendingViews(trx: Kysely<Database>, projectKey: number, firstDay: number, endDay: number): Promise<Tuple[]> {
  const pending = await trx.selectFrom('analytics_pending').select('tuples').where('project_key', '=', projectKey).execute();
  const tuples: Tuple[] = [];
  for (const batch of pending) for (const tuple of decodeTuples(batch.tuples)) if (tuple.day >= firstDay && tuple.day < endDay) tuples.push(tuple);
  return tuples;
}

/**
 * Unique visitors of whole days, from the range index when it covers the days and no pending view
 * falls in them; otherwise null, and the index is asked to catch up.
 */
export async function indexedVisitors(trx: Kysely<Database>, engine: Engine, projectKey: number, from: number, to: number): Promise<Ranking | null> {
  const { firstDay, endDay, partial } = splitRange(from, to);
  if (partial.length > 0) return null;
  const index = engine.index(projectKey);
  const fresh = index !== undefined && index.covers(firstDay, endDay, await dayRevisions(trx, projectKey, firstDay, endDay));
  if (fresh && (await pendingViews(trx, projectKey, firstDay, endDay)).length === 0) return index.rank(firstDay, endDay);
  // Days older than the span are always counted from day sets; asking for a new index would not help.
  if (index === undefined || firstDay >= index.spanStart) engine.onIndexStale(projectKey);
  return null;
}

/** Reads the sources of [from, to) inside `trx`, decoding only day sets whose revision is not cached. */
export async function readSources(trx: Kysely<Database>, engine: Engine, projectKey: number, from: number, to: number): Promise<Sources> {
  const { firstDay, endDay, partial } = splitRange(from, to);
  const sources: Sources = { days: [], loose: [] };
  if (endDay > firstDay) {
    sources.days = await loadDays(trx, engine, projectKey, await dayRevisions(trx, projectKey, firstDay, endDay));
    sources.loose = await pendingViews(trx, projectKey, firstDay, endDay);
  }
  for (const [start, end] of partial) sources.loose.push(...(await rawViews(trx, engine, projectKey, start, end)));
  return sources;
}
