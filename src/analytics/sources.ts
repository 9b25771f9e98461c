import type { Kysely } from 'kysely';
import type { DialectProfile } from '../storage/dialect.ts';
import type { Database } from '../storage/schema.ts';
import { agentKind, classCodes, classify, type AgentKind } from './classify.ts';
import { decodeDaySet, decodeTuples, type DaySet, type Tuple } from './encoding.ts';
import type { Engine } from './engine.ts';
import { counts } from './events.ts';
import { dayMs, dayOf } from './time.ts';

/** Everything a query counts, read in one snapshot: whole-day sets plus loose views (pending or partial-day). */
export interface Sources {
  days: { classCode: number; set: DaySet }[];
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

/** Counted views of [from, to) straight from the raw events (used for partial days). */
export async function rawViews(trx: Kysely<Database>, engine: Engine, projectKey: number, from: number, to: number): Promise<Tuple[]> {
  const rows = await trx
    .selectFrom('analytics_events')
    .select(['at', 'path_id', 'agent_id', 'visitor_id', 'markdown', 'status'])
    .where('project_key', '=', projectKey)
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

/** Reads the sources of [from, to) inside `trx`, decoding only day sets whose revision is not cached. */
export async function readSources(trx: Kysely<Database>, engine: Engine, projectKey: number, from: number, to: number): Promise<Sources> {
  const { firstDay, endDay, partial } = splitRange(from, to);
  const sources: Sources = { days: [], loose: [] };
  if (endDay > firstDay) {
    const revisions = await trx
      .selectFrom('analytics_day_sets')
      .select(['day', 'class', 'revision'])
      .where('project_key', '=', projectKey)
      .where('day', '>=', firstDay)
      .where('day', '<', endDay)
      .execute();
    const stale: { day: number; classCode: number; revision: number }[] = [];
    for (const row of revisions) {
      const key = `${projectKey}:${row.day}:${row.class}`;
      const set = engine.cachedDay(key, Number(row.revision));
      if (set) sources.days.push({ classCode: Number(row.class), set });
      else stale.push({ day: Number(row.day), classCode: Number(row.class), revision: Number(row.revision) });
    }
    for (let start = 0; start < stale.length; start += 50) {
      const part = stale.slice(start, start + 50);
      const rows = await trx
        .selectFrom('analytics_day_sets')
        .select(['day', 'class', 'revision', 'data'])
        .where('project_key', '=', projectKey)
        .where('day', 'in', [...new Set(part.map((entry) => entry.day))])
        .execute();
      for (const row of rows) {
        if (!part.some((entry) => entry.day === Number(row.day) && entry.classCode === Number(row.class))) continue;
        const set = decodeDaySet(row.data);
        engine.storeDay(`${projectKey}:${row.day}:${row.class}`, Number(row.revision), set);
        sources.days.push({ classCode: Number(row.class), set });
      }
    }
    const pending = await trx.selectFrom('analytics_pending').select('tuples').where('project_key', '=', projectKey).execute();
    for (const batch of pending) for (const tuple of decodeTuples(batch.tuples)) if (tuple.day >= firstDay && tuple.day < endDay) sources.loose.push(tuple);
  }
  for (const [start, end] of partial) sources.loose.push(...(await rawViews(trx, engine, projectKey, start, end)));
  return sources;
}
