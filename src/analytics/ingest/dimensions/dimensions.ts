/**
 * The dimensions ingestion gives each view beside its class: country (from the client address, which
 * is then dropped), its visit's entry flag and source (visits.ts), and, once per user agent, the
 * browser, OS and device (user-agents.ts, kept in `analytics_agent_traits`). The per-event work is a
 * cached country lookup (done by the parse thread for events that came through one) and a map read per visitor; parsing happens once per distinct value. Visits
 * are a guess the fold checks where ingestion cannot be sure (visits.ts, fold/visit-repair.ts).
 */
import type { Kysely } from 'kysely';
import type { DialectProfile } from '../../../storage/dialect.ts';
import type { Database } from '../../../storage/schema.ts';
import { dayOf, eventDay } from '../../model/days.ts';
import type { PreparedEvent } from '../../model/prepared-event.ts';
import { countries } from './countries.ts';
import { agentTraits } from './user-agents.ts';
import { VisitTracker, visitGapMs } from './visits.ts';

/** Per dictionary (one per process and database): visits in progress, and the agents whose traits are stored. */
const trackers = new WeakMap<object, { visits: VisitTracker; traitsStored: Set<number> }>();
function processState(dictionary: object) {
  let state = trackers.get(dictionary);
  if (!state) trackers.set(dictionary, (state = { visits: new VisitTracker(), traitsStored: new Set() }));
  return state;
}

/** Drops what a process remembers of a project's visits (a rebuild recomputed them). */
export function forgetVisits(dictionary: object, projectKey: number): void {
  processState(dictionary).visits.forget(projectKey);
}

export interface EventDimensions {
  country: (string | null)[];
  sourceId: (number | null)[];
  entry: Uint8Array;
  /** 1 where the entry flag and source are a guess the fold must check (see visits.ts). */
  doubtful: Uint8Array;
  epoch: number;
}

/** Stores the traits of user agents not stored yet (as far as this process knows, unless `all`); idempotent. */
export async function storeAgentTraits(trx: Kysely<Database>, dictionary: object, agents: Map<number, string>, all = false): Promise<void> {
  const { traitsStored } = processState(dictionary);
  const rows = [...agents].filter(([id]) => all || !traitsStored.has(id)).map(([id, userAgent]) => ({ agent_id: id, ...agentTraits(userAgent) }));
  for (let start = 0; start < rows.length; start += 200) {
    // Ids in one order, so writers side by side lock them in one order.
    rows.sort((a, b) => a.agent_id - b.agent_id);
    await trx
      .insertInto('analytics_agent_traits')
      .values(rows.slice(start, start + 200))
      .onConflict((conflict) => conflict.column('agent_id').doNothing())
      .execute();
  }
}

/** Marks traits stored once the transaction that stored them committed. */
export function learnAgentTraits(dictionary: object, agentIds: Iterable<number>): void {
  const { traitsStored } = processState(dictionary);
  for (const id of agentIds) traitsStored.add(id);
}

/** Stores the traits of the events' user agents this process has not seen stored; returns their ids, to learn after commit. */
export async function storeMissingTraits(trx: Kysely<Database>, dictionary: object, events: PreparedEvent[], agentOf: number[]): Promise<number[]> {
  const { traitsStored } = processState(dictionary);
  const missing = new Map<number, string>();
  agentOf.forEach((id, index) => {
    if (!traitsStored.has(id)) missing.set(id, events[index].userAgent);
  });
  if (missing.size > 0) await storeAgentTraits(trx, dictionary, missing);
  return [...missing.keys()];
}

/** Loads the project's visits in progress: the views of the last 30 minutes before its newest stored view. */
async function loadVisits(trx: Kysely<Database>, visits: VisitTracker, projectKey: number, now: number): Promise<void> {
  // The newest day first, so both reads go through the (project, day) index.
  const last = await trx
    .selectFrom('analytics_events')
    .select((eb) => eb.fn.max(eventDay).as('day'))
    .where('project_key', '=', projectKey)
    .executeTakeFirst();
  if (last?.day === null || last?.day === undefined) return visits.load(projectKey, [], null, now);
  const newest = await trx
    .selectFrom('analytics_events')
    .select((eb) => eb.fn.max('at').as('at'))
    .where('project_key', '=', projectKey)
    .where(eventDay, '=', Number(last.day))
    .executeTakeFirstOrThrow();
  const newestAt = Number(newest.at);
  const recent = await trx
    .selectFrom('analytics_events')
    .select(['visitor_id', 'at', 'source_id'])
    .where('project_key', '=', projectKey)
    .where(eventDay, '>=', dayOf(newestAt - visitGapMs))
    .where('at', '>=', newestAt - visitGapMs)
    .orderBy('at')
    .execute();
  visits.load(
    projectKey,
    recent.map((row) => ({ visitorId: Number(row.visitor_id), at: Number(row.at), sourceId: row.source_id === null ? null : Number(row.source_id) })),
    newestAt,
    now,
  );
}

/**
 * Country, entry flag, visit source and doubt of each event (in order), inside the ingesting
 * transaction; `visitorOf` and `referrerOf` are the events' dense visitor ids and referring sites.
 * `epoch` goes to `claimVisits` when the batch is queued.
 */
export async function eventDimensions(
  trx: Kysely<Database>,
  dictionary: object,
  projectKey: number,
  events: PreparedEvent[],
  visitorOf: ArrayLike<number>,
  referrerOf: (number | null)[],
  now = Date.now(),
): Promise<EventDimensions> {
  const { visits } = processState(dictionary);
  if (visits.needsLoad(projectKey, now)) await loadVisits(trx, visits, projectKey, now);
  const count = events.length;
  const country: (string | null)[] = new Array(count);
  for (let index = 0; index < count; index++) {
    const known = events[index].country;
    country[index] = known !== undefined ? known : countries.country(events[index].visitorKey.ip);
  }
  // Views go through visits in time order; a call's events nearly always are already.
  let order: ArrayLike<number> | null = null;
  for (let index = 1; index < count; index++)
    if (events[index].at < events[index - 1].at) {
      order = Array.from({ length: count }, (_, at) => at).sort((a, b) => events[a].at - events[b].at);
      break;
    }
  if (order === null) {
    const inOrder = new Uint32Array(count);
    for (let index = 0; index < count; index++) inOrder[index] = index;
    order = inOrder;
  }
  const sourceId: (number | null)[] = new Array(count);
  const entry = new Uint8Array(count);
  const doubtful = new Uint8Array(count);
  const epoch = visits.assign(projectKey, order, { visitorOf, atOf: (index) => events[index].at, referrerOf }, entry, sourceId, doubtful);
  return { country, sourceId, entry, doubtful, epoch };
}

/**
 * Inside the transaction that queues a batch, just before the project's version moves on: records this
 * process as the project's latest visit writer and answers whether the whole batch is doubtful (another
 * process wrote the project meanwhile). On PostgreSQL the project's row is locked here, where the
 * version's update would lock it anyway, so commits of one project read one another's writer in turn.
 */
export async function claimVisits(trx: Kysely<Database>, profile: DialectProfile, dictionary: object, projectKey: number, epoch: number): Promise<boolean> {
  const { visits } = processState(dictionary);
  const row = await trx
    .selectFrom('analytics_projects')
    .select('visit_writer')
    .where('project_key', '=', projectKey)
    .$if(profile.rowLocks, (query) => query.forUpdate())
    .executeTakeFirstOrThrow();
  return visits.committed(projectKey, epoch, row.visit_writer);
}

/** The name this process writes in `analytics_projects.visit_writer`. */
export function visitWriter(dictionary: object): string {
  return processState(dictionary).visits.writer;
}
