import type { Kysely } from 'kysely';
import type { ProjectRow } from '../accounts/tables.ts';
import type { Storage } from '../storage/dialect.ts';
import type { Database } from '../storage/schema.ts';
import { agentKind, classCodes, classify } from './classify.ts';
import { agentIds, pathIds, projectKey, visitorIds } from './dictionary.ts';
import { encodeTuples, type Tuple } from './encoding.ts';
import { engineFor } from './engine.ts';
import { counts, prepareEvent, type PreparedEvent } from './events.ts';
import { visitorHash } from './identity.ts';
import { dayOf } from './time.ts';

export const maxEventsPerRequest = 10_000;

export interface EventError {
  index: number;
  message: string;
}

export interface IngestResult {
  accepted: number;
  rejected: number;
  errors: EventError[];
  /** Events whose `eventKey` was stored before (an imported line seen again); not counted twice. */
  duplicates: number;
}

/** Validates raw inputs (a parse failure arrives as an Error) into events and per-event errors. */
export function prepareAll(inputs: unknown[], now = Date.now()): { events: PreparedEvent[]; errors: EventError[] } {
  const events: PreparedEvent[] = [];
  const errors: EventError[] = [];
  inputs.forEach((input, index) => {
    try {
      if (input instanceof Error) throw input;
      events.push(prepareEvent(input, now));
    } catch (error) {
      errors.push({ index, message: (error as Error).message });
    }
  });
  return { events, errors };
}

const rowsPerStatement = 500;

/**
 * Stores events durably and queues their counted views for the day sets, in one transaction: when
 * this resolves, the events are committed and every query sees them.
 */
export async function storeEvents(storage: Storage, project: Pick<ProjectRow, 'id' | 'analytics_secret'>, events: PreparedEvent[]): Promise<{ stored: number; duplicates: number }> {
  if (events.length === 0) return { stored: 0, duplicates: 0 };
  const engine = engineFor(storage);
  const { dictionary } = engine;
  const key = await projectKey(storage.db, dictionary, project.id);
  const hashes = events.map((event) => visitorHash(project.analytics_secret, event.visitorKey));
  const outcome = await storage.db.transaction().execute(async (trx) => {
    const paths = await pathIds(trx, dictionary, key, events.map((event) => event.path));
    const agents = await agentIds(trx, dictionary, events.map((event) => event.userAgent));
    const visitors = await visitorIds(trx, dictionary, key, hashes);
    const rows = events.map((event, index) => ({
      project_key: key,
      at: event.at,
      path_id: paths.ids.get(event.path)!,
      agent_id: agents.ids.get(event.userAgent)!,
      visitor_id: visitors.ids[index],
      markdown: event.markdown ? 1 : 0,
      status: event.status,
      referrer: event.referrer,
      event_key: event.eventKey,
    }));
    const inserted = await insertEvents(trx, rows);
    const tuples: Tuple[] = [];
    rows.forEach((row, index) => {
      if (!inserted(row.event_key) || !counts(row.status)) return;
      const viewClass = classify(agentKind(events[index].userAgent), events[index].markdown);
      if (viewClass === 'excluded') return;
      tuples.push({ day: dayOf(row.at), pathId: row.path_id, classCode: classCodes[viewClass], visitor: row.visitor_id });
    });
    if (tuples.length > 0) {
      await trx.insertInto('analytics_pending').values({ project_key: key, tuples: Buffer.from(encodeTuples(tuples)) }).execute();
      await trx.updateTable('analytics_projects').set((eb) => ({ version: eb('version', '+', 1) })).where('project_key', '=', key).execute();
    }
    const stored = rows.filter((row) => inserted(row.event_key)).length;
    return { stored, duplicates: rows.length - stored, paths, agents, visitors };
  });
  dictionary.learnPaths(key, outcome.paths.learned);
  for (const [agent, id] of outcome.agents.learned) dictionary.agents.set(agent, id);
  dictionary.learnVisitors(key, outcome.visitors.learned);
  engine.onCommitted(key);
  return { stored: outcome.stored, duplicates: outcome.duplicates };
}

type EventInsert = Database['analytics_events'];

/** Inserts rows; returns whether a row's event key was new (rows without a key always are). */
async function insertEvents(trx: Kysely<Database>, rows: EventInsert[]): Promise<(eventKey: string | null) => boolean> {
  const keyed = rows.some((row) => row.event_key !== null);
  const fresh = new Set<string>();
  for (let start = 0; start < rows.length; start += rowsPerStatement) {
    const part = rows.slice(start, start + rowsPerStatement);
    if (!keyed) {
      await trx.insertInto('analytics_events').values(part).execute();
      continue;
    }
    const returned = await trx.insertInto('analytics_events').values(part).onConflict((conflict) => conflict.doNothing()).returning('event_key').execute();
    for (const row of returned) if (row.event_key !== null) fresh.add(row.event_key);
  }
  return (eventKey) => eventKey === null || fresh.has(eventKey);
}

/** The whole pipeline for API and tracker calls: validate, store, report per event. */
export async function ingest(storage: Storage, project: Pick<ProjectRow, 'id' | 'analytics_secret'>, inputs: unknown[]): Promise<IngestResult> {
  const { events, errors } = prepareAll(inputs);
  const { stored, duplicates } = await storeEvents(storage, project, events);
  return { accepted: stored, rejected: errors.length, errors, duplicates };
}
