import type { Kysely } from 'kysely';
import type { ProjectRow } from '../../storage/tables/accounts.ts';
import type { Storage } from '../../storage/dialect.ts';
import type { Database } from '../../storage/schema.ts';
import type { StatisticsKeeper } from '../../storage/statistics.ts';
import { dayOf } from '../model/days.ts';
import { RecordWriter } from '../model/varint.ts';
import type { AnalyticsSignals } from '../model/signals.ts';
import { insertEvents, type EventInsert } from './bulk-statements.ts';
import { breakdownEntries } from './breakdown-entries.ts';
import { countedClass } from './classify.ts';
import { agentIds, pathIds, projectKey, type Dictionary } from './dense-ids.ts';
import { GroupWriter } from './group-commit.ts';
import type { KeyDirectories } from './verify/key-directories.ts';
import { referrerIds, referringHost } from './referrers.ts';
import { prepareEvent, type PreparedEvent } from './validate.ts';
import { identityKey, mergeRecentVisitors, visitorHash, visitorIds } from './visitor-identity.ts';
import { refuseReplays } from './verify/replays.ts';
import { verifySignatures } from './verify/web-bot-auth.ts';

export const maxEventsPerRequest = 10_000;
/** Events per shared transaction: bounds how long one commit holds the write lock. */
const maxEventsPerCommit = 20_000;

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

/** Tracker domains, when known, are the project's own site: a referrer there is not another site. */
export type IngestProject = Pick<ProjectRow, 'id' | 'analytics_secret'> & Partial<Pick<ProjectRow, 'tracker_domains'>>;
interface Call {
  project: IngestProject;
  key: number;
  events: PreparedEvent[];
}
interface Stored {
  stored: number;
  duplicates: number;
}

/** Group commit of ingestion calls: one per process and database (see group-commit.ts). */
export type EventWriter = GroupWriter<Call, Stored>;

/** What ingestion uses of the process's analytics state (see ../state.ts). */
export interface IngestState {
  storage: Storage;
  ids: Dictionary;
  writer: EventWriter;
  /** Web Bot Auth key directories this process has fetched. */
  directories: KeyDirectories;
  /** Analyzes tables this process has filled quickly (feedback and searches; see storage/statistics.ts). */
  statistics: StatisticsKeeper;
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

/** Stores one call's events and queues their counted views inside `trx`; returns what to cache after commit. */
async function storeCall(trx: Kysely<Database>, storage: Storage, dictionary: Dictionary, { project, key, events }: Call) {
  // Where writers run side by side (PostgreSQL), a counter's row lock held to commit would make them
  // take turns; ids reserved in their own short transaction leave a gap if ours rolls back, which is harmless.
  const counters = storage.profile.concurrentWrites > 1 ? storage.db : trx;
  const paths = await pathIds(
    trx,
    dictionary,
    key,
    events.map((event) => event.path),
    counters,
  );
  const agents = await agentIds(
    trx,
    dictionary,
    events.map((event) => event.userAgent),
  );
  const hosts = events.map((event) => referringHost(event.referrer, event.utmSource, project.tracker_domains ?? ''));
  const referrers = await referrerIds(
    trx,
    dictionary,
    hosts.filter((host) => host !== null),
  );
  const known = dictionary.identities.get(key);
  // Returning visitors are resolved from the cache here; the others are hashed once per key and looked up together.
  const visitorOf = new Float64Array(events.length);
  const identities: string[] = new Array(events.length);
  const hashes = new Map<string, string>();
  events.forEach((event, index) => {
    const identity = identityKey(event.visitorKey, agents.ids.get(event.userAgent)!);
    const id = known?.get(identity);
    if (id !== undefined) visitorOf[index] = id;
    else {
      identities[index] = identity;
      if (!hashes.has(identity)) hashes.set(identity, event.visitorHash ?? visitorHash(project.analytics_secret, event.visitorKey));
    }
  });
  const assigned = await visitorIds(trx, storage.profile, key, [...new Set(hashes.values())], counters);
  const learned = new Map([...hashes].map(([identity, hash]) => [identity, assigned.ids.get(hash)!]));
  const rows: EventInsert[] = events.map((event, index) => ({
    project_key: key,
    at: event.at,
    path_id: paths.ids.get(event.path)!,
    agent_id: agents.ids.get(event.userAgent)!,
    visitor_id: identities[index] === undefined ? visitorOf[index] : learned.get(identities[index])!,
    markdown: event.markdown ? 1 : 0,
    status: event.status,
    referrer: event.referrer,
    event_key: event.eventKey,
    verification: event.verification,
    referrer_id: hosts[index] === null ? null : referrers.ids.get(hosts[index])!,
  }));
  const inserted = await insertEvents(trx, storage.profile, rows);
  // Counted views (model/pending-batch.ts) and breakdown entries (model/breakdown-batch.ts) of the call.
  const tuples = new RecordWriter();
  const breakdowns = new RecordWriter();
  let stored = 0;
  rows.forEach((row, index) => {
    if (!inserted(row.event_key)) return;
    stored++;
    const { userAgent, markdown } = events[index];
    const classCode = countedClass(userAgent, markdown, row.status, events[index].verification);
    const day = dayOf(row.at);
    if (classCode !== null) tuples.add(day, row.path_id, classCode, row.visitor_id);
    breakdownEntries(
      { userAgent, agentId: row.agent_id, markdown, status: row.status, verification: events[index].verification, referrerId: row.referrer_id },
      (kind, entryKey) => breakdowns.add(day, kind, entryKey, row.visitor_id),
    );
  });
  const queued = tuples.count > 0 || breakdowns.count > 0;
  if (queued) {
    await trx
      .insertInto('analytics_pending')
      .values({ project_key: key, tuples: Buffer.from(tuples.finish()), breakdowns: breakdowns.count > 0 ? Buffer.from(breakdowns.finish()) : null })
      .execute();
  }
  return {
    queued,
    result: { stored, duplicates: rows.length - stored },
    paths: paths.learned,
    agents: agents.learned,
    referrers: referrers.learned,
    identities: learned,
    freshVisitors: assigned.fresh,
  };
}

/**
 * Writes calls in shared transactions; the id caches learn new ids only once a transaction has
 * committed, `signals` hears of each project with new events, and `statistics` of new visitors.
 */
export function createEventWriter(storage: Storage, dictionary: Dictionary, signals: AnalyticsSignals, statistics?: StatisticsKeeper): EventWriter {
  let freshVisitors = 0;
  return new GroupWriter({
    async write(calls) {
      const outcomes = await storage.db.transaction().execute(async (trx) => {
        const done: Awaited<ReturnType<typeof storeCall>>[] = [];
        for (const call of calls) done.push(await storeCall(trx, storage, dictionary, call));
        // Last and in key order: a project's row stays locked only for the commit, and writers side by side lock rows in one order.
        const queued = [...new Set(calls.filter((_, index) => done[index].queued).map((call) => call.key))].sort((a, b) => a - b);
        for (const key of queued) {
          await trx
            .updateTable('analytics_projects')
            .set((eb) => ({ version: eb('version', '+', 1) }))
            .where('project_key', '=', key)
            .execute();
        }
        return done;
      });
      // The visitor index grows fastest: looked up by hash with stale statistics, it would be scanned whole.
      statistics?.wrote({ analytics_visitors: outcomes.reduce((sum, outcome) => sum + outcome.freshVisitors, 0) });
      outcomes.forEach((outcome, index) => {
        const { key } = calls[index];
        dictionary.learnPaths(key, outcome.paths);
        for (const [agent, id] of outcome.agents) dictionary.agents.set(agent, id);
        for (const [host, id] of outcome.referrers) dictionary.referrers.set(host, id);
        dictionary.learnIdentities(key, outcome.identities);
        freshVisitors += outcome.freshVisitors;
      });
      for (const key of new Set(calls.map((call) => call.key))) signals.emit('events-committed', key);
      return outcomes.map((outcome) => outcome.result);
    },
    size: (call) => call.events.length,
    maxSize: maxEventsPerCommit,
    concurrency: storage.profile.concurrentWrites,
    // Side by side, a transaction of one call inserts into the dictionaries in one fixed order (paths,
    // agents, referrers, visitors, each sorted), so two of them cannot deadlock; several calls in one
    // transaction would revisit them. The database shares a log flush among concurrent commits itself.
    maxCalls: storage.profile.concurrentWrites > 1 ? 1 : undefined,
    async afterGroup() {
      // A failed merge leaves the visitors in the recent table, where lookups still find them; the next group retries.
      if (await mergeRecentVisitors(storage, freshVisitors).catch(() => false)) freshVisitors = 0;
    },
  });
}

/**
 * Stores events durably and queues their counted views for the day sets: when this resolves, the
 * events are committed (possibly together with concurrent calls) and every query sees them.
 */
export async function storeEvents(state: IngestState, project: IngestProject, events: PreparedEvent[]): Promise<Stored> {
  if (events.length === 0) return { stored: 0, duplicates: 0 };
  const key = await projectKey(state.storage.db, state.ids, project.id);
  return state.writer.write({ project, key, events });
}

/** Checks the Web Bot Auth signatures of events that carry headers, and that none is a replay, then stores them (`storeEvents`). */
export async function storeVerified(state: IngestState, project: IngestProject, events: PreparedEvent[]): Promise<Stored> {
  const verified = await verifySignatures(state.directories, events);
  if (verified.length > 0) {
    await refuseReplays(state.storage.db, await projectKey(state.storage.db, state.ids, project.id), project.analytics_secret, verified);
  }
  return storeEvents(state, project, events);
}

/** The whole pipeline for API and tracker calls: validate, check signatures, store, report per event. */
export async function ingest(state: IngestState, project: IngestProject, inputs: unknown[]): Promise<IngestResult> {
  const { events, errors } = prepareAll(inputs);
  const { stored, duplicates } = await storeVerified(state, project, events);
  return { accepted: stored, rejected: errors.length, errors, duplicates };
}
