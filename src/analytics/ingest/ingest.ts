import type { Insertable, Kysely, QueryCreator } from 'kysely';
import type { Logger } from 'pino';
import type { ProjectRow } from '../../storage/tables/accounts.ts';
import type { DialectProfile, Storage } from '../../storage/dialect.ts';
import type { Database } from '../../storage/schema.ts';
import type { StatisticsKeeper } from '../../storage/statistics.ts';
import { dayOf } from '../model/days.ts';
import { RecordWriter } from '../model/varint.ts';
import { VisitDoubts } from '../model/visit-doubts.ts';
import type { AnalyticsSignals } from '../model/signals.ts';
import { insertEvents, type EventInsert } from './bulk-statements.ts';
import { breakdownEntries } from './breakdown-entries.ts';
import { countedClass } from './classify.ts';
import { claimVisits, eventDimensions, forgetVisits, learnAgentTraits, storeMissingTraits, visitWriter } from './dimensions/dimensions.ts';
import { agentIds, counterValue, firstId, idReserver, pathIds, projectKey, type Dictionary } from './dense-ids.ts';
import { GroupWriter } from './group-commit.ts';
import type { KeyDirectories } from './verify/key-directories.ts';
import { referrerIds, referringHost } from './referrers.ts';
import type { PreparedEvent } from '../model/prepared-event.ts';
import { checkEach, prepareEvent, type EventError } from './validate.ts';
import { identityKey, visitorHash } from './visitor-hash.ts';
import { mergeRecentVisitorsBeside, recentMergeDue, visitorIds } from './visitor-identity.ts';
import { refuseReplays } from './verify/replays.ts';
import { verifySignatures } from './verify/web-bot-auth.ts';

export const maxEventsPerRequest = 10_000;
/** Events per shared transaction: bounds how long one commit holds the write lock. */
const maxEventsPerCommit = 20_000;

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
  /** Where work nobody waits for reports a failure (a recorded request, an ANALYZE). */
  logger: Pick<Logger, 'warn'>;
}

/** Validates raw inputs into events and per-event errors. */
export function prepareAll(inputs: unknown[], now = Date.now()): { events: PreparedEvent[]; errors: EventError[] } {
  const { checked, errors } = checkEach(inputs, (input) => prepareEvent(input, now));
  return { events: checked, errors };
}

/**
 * Stores the events of calls of one project and queues their counted views inside `trx`, as one
 * call would be; returns each call's result and what to cache after commit.
 */
async function storeCalls(trx: Kysely<Database>, storage: Storage, dictionary: Dictionary, calls: Call[]) {
  const { project, key } = calls[0];
  const events = calls.length === 1 ? calls[0].events : calls.flatMap((call) => call.events);
  const sideBySide = storage.profile.concurrentWrites > 1;
  const reserveIds = idReserver(storage, dictionary, trx, key);
  const paths = await pathIds(
    trx,
    dictionary,
    key,
    events.map((event) => event.path),
    reserveIds,
  );
  const agents = await agentIds(
    trx,
    dictionary,
    events.map((event) => event.userAgent),
  );
  // Per distinct referrer (a call's events share one string per distinct text, see model/packed-batch.ts): a URL parse and
  // the tracker-domain checks per view were a twentieth of the event loop's ingestion work.
  const trackerDomains = project.tracker_domains ?? '';
  const hostOf = new Map<string | null, string | null>();
  const hosts = events.map((event) => {
    if (event.utmSource !== null) return referringHost(event.referrer, event.utmSource, trackerDomains);
    let host = hostOf.get(event.referrer);
    if (host === undefined) hostOf.set(event.referrer, (host = referringHost(event.referrer, null, trackerDomains)));
    return host;
  });
  const referrers = await referrerIds(
    trx,
    dictionary,
    hosts.filter((host) => host !== null),
  );
  const agentOf = events.map((event) => agents.ids.get(event.userAgent)!);
  // Returning visitors come from the cache; the others are hashed once per visitor key and looked up together.
  const visitorOf = new Float64Array(events.length);
  const missed: number[] = [];
  const hashOf = new Map<string, string>();
  const missedHashes: string[] = [];
  events.forEach((event, index) => {
    const id = dictionary.identities.get(key, event.visitorKey, agentOf[index]);
    if (id !== undefined) {
      visitorOf[index] = id;
      return;
    }
    const identity = identityKey(event.visitorKey, agentOf[index]);
    let hash = hashOf.get(identity);
    if (hash === undefined) hashOf.set(identity, (hash = event.visitorHash ?? visitorHash(project.analytics_secret, event.visitorKey)));
    missed.push(index);
    missedHashes.push(hash);
  });
  // Where ids are reserved inside `trx` (writers take turns), a visitor counter that has not moved since
  // this process's cache held every visitor of the project (or that never gave an id) means a visitor the
  // cache missed is new: it is not looked up (the common case of a first import, nearly all new visitors).
  const cache = dictionary.identities;
  const generation = cache.generation;
  const counterBefore = !sideBySide && hashOf.size > 0 ? await counterValue(trx, key, 'next_visitor') : null;
  const allNew = counterBefore !== null && counterBefore === (cache.completeAt(key) ?? firstId);
  const assigned = await visitorIds(trx, storage.profile, dictionary.visitorLog, key, [...hashOf.values()], reserveIds, allNew);
  missed.forEach((index, at) => (visitorOf[index] = assigned.ids.get(missedHashes[at])!));
  const referrerOf = hosts.map((host) => (host === null ? null : referrers.ids.get(host)!));
  const classes = events.map((event) => countedClass(event.userAgent, event.markdown, event.status, event.verification));
  const dimensions = await eventDimensions(trx, dictionary, key, events, visitorOf, referrerOf);
  const traits = await storeMissingTraits(trx, dictionary, events, agentOf);
  const rows: EventInsert[] = events.map((event, index) => ({
    project_key: key,
    at: event.at,
    path_id: paths.ids.get(event.path)!,
    agent_id: agentOf[index],
    visitor_id: visitorOf[index],
    markdown: event.markdown,
    status: event.status,
    referrer: event.referrer,
    event_key: event.eventKey,
    verification: event.verification,
    referrer_id: referrerOf[index],
    counted: classes[index],
    country: dimensions.country[index],
    source_id: dimensions.sourceId[index],
    entry: dimensions.entry[index],
  }));
  // A turn of the event loop between the two halves of a group's work (statements run synchronously on
  // SQLite, and awaiting them yields only to other promises): the last group's flush to disk is answered
  // and parsed bodies join the queue here instead of after the whole group, about 5 ms later.
  await new Promise<void>((resolve) => setImmediate(resolve));
  const inserted = await insertEvents(trx, storage.profile, rows);
  // Counted views (model/pending-batch.ts) and breakdown entries (model/breakdown-batch.ts) of the call.
  const tuples = new RecordWriter();
  const breakdowns = new RecordWriter();
  const fresh = new Uint8Array(rows.length);
  const notFound = new Map<number, number>();
  rows.forEach((row, index) => {
    if (!inserted(row.event_key)) return;
    fresh[index] = 1;
    const { userAgent, markdown } = events[index];
    const classCode = classes[index];
    const day = dayOf(row.at);
    if (classCode !== null) tuples.add(day, row.path_id, classCode, row.visitor_id);
    if (row.status === 404) notFound.set(day, (notFound.get(day) ?? 0) + 1);
    breakdownEntries(
      {
        userAgent,
        agentId: row.agent_id,
        markdown,
        status: row.status,
        verification: events[index].verification,
        referrerId: row.referrer_id,
        country: row.country,
        sourceId: row.source_id,
        entry: row.entry,
        pathId: row.path_id,
      },
      (kind, entryKey) => breakdowns.add(day, kind, entryKey, row.visitor_id),
    );
  });
  // Every batch that stored a view is queued, counted or not: any view belongs to its visitor's visits, so
  // the batch must name its writer and may carry doubts (claimVisits).
  const pending: PendingInsert | null = fresh.includes(1)
    ? { project_key: key, tuples: Buffer.from(tuples.finish()), breakdowns: breakdowns.count > 0 ? Buffer.from(breakdowns.finish()) : null }
    : null;
  return {
    pending,
    /** What `visitDoubts` needs once the commit knows whether the whole batch is doubtful. */
    visits: { rows, fresh, doubtful: dimensions.doubtful, epoch: dimensions.epoch },
    /** Requests answered 404 per UTC day, for `analytics_not_found_days`. */
    notFound: notFound.size > 0 ? { projectKey: key, days: notFound } : null,
    results: callResults(calls, fresh),
    paths: paths.learned,
    agents: agents.learned,
    referrers: referrers.learned,
    /** The visitors that were not cached, to cache once the transaction commits. */
    learned: missed.map((index) => ({ key: events[index].visitorKey, agentId: agentOf[index], visitorId: visitorOf[index] })),
    /** Once learned, the cache holds every visitor of the project up to this counter. */
    complete: allNew && counterBefore !== null ? { counter: counterBefore + assigned.fresh, generation } : null,
    freshVisitors: assigned.fresh,
    traits,
  };
}

/** Each call's stored and duplicate counts, from whether each row of the calls' events was new (1) or not (0). */
function callResults(calls: Call[], fresh: Uint8Array): Stored[] {
  let start = 0;
  return calls.map(({ events }) => {
    let stored = 0;
    for (let index = start; index < start + events.length; index++) stored += fresh[index];
    start += events.length;
    return { stored, duplicates: events.length - stored };
  });
}

type PendingInsert = Insertable<Database['analytics_pending']>;

/** The stored views whose visits the fold must check (model/visit-doubts.ts): the doubtful ones, or all of them (`whole`). */
function visitDoubts(visits: { rows: EventInsert[]; fresh: Uint8Array; doubtful: Uint8Array }, whole: boolean): Buffer | null {
  const doubts = new VisitDoubts();
  visits.rows.forEach((row, index) => {
    if (visits.fresh[index] === 1 && (whole || visits.doubtful[index] === 1)) doubts.add(row.visitor_id, row.at);
  });
  return doubts.count > 0 ? Buffer.from(doubts.finish()) : null;
}

/**
 * Queues a project's counted views for the fold and moves its version on (what cached answers are
 * checked against), naming this process as the project's visit writer: one statement where the
 * database allows it.
 */
async function queueBatch(trx: Kysely<Database>, profile: DialectProfile, batch: PendingInsert, writer: string): Promise<void> {
  const bump = (db: QueryCreator<Database>) =>
    db
      .updateTable('analytics_projects')
      .set((eb) => ({ version: eb('version', '+', 1), visit_writer: writer }))
      .where('project_key', '=', batch.project_key);
  if (profile.modifyingCtes) {
    await bump(trx.with('queued', (db) => db.insertInto('analytics_pending').values(batch))).execute();
    return;
  }
  await trx.insertInto('analytics_pending').values(batch).execute();
  await bump(trx).execute();
}

/**
 * Adds a batch's requests answered 404 to their days' counts (in day order): what tells docs gaps that
 * a day's failures changed since its evidence was kept (feedback/gap-days.ts). One short statement,
 * only for a batch that has 404s.
 */
async function countNotFound(trx: Kysely<Database>, projectKey: number, days: Map<number, number>): Promise<void> {
  await trx
    .insertInto('analytics_not_found_days')
    .values([...days].sort((a, b) => a[0] - b[0]).map(([day, failures]) => ({ project_key: projectKey, day, failures })))
    .onConflict((conflict) =>
      conflict.columns(['project_key', 'day']).doUpdateSet((eb) => ({ failures: eb('analytics_not_found_days.failures', '+', eb.ref('excluded.failures')) })),
    )
    .execute();
}

/**
 * Writes calls in shared transactions; the id caches learn new ids only once a transaction has
 * committed, `signals` hears of each project with new events, and `statistics` of new visitors.
 */
export function createEventWriter(storage: Storage, dictionary: Dictionary, signals: AnalyticsSignals, statistics?: StatisticsKeeper): EventWriter {
  let freshVisitors = 0;
  let merging: Promise<void> | null = null;
  return new GroupWriter({
    async write(calls) {
      const projects = [...new Set(calls.map((call) => call.key))].sort((a, b) => a - b).map((key) => calls.filter((call) => call.key === key));
      // Answered once on disk (callers wait for `durable`) while the next group is written: the caches below
      // learn this group's ids as soon as it has committed, before the next group's transaction begins.
      const { value: outcomes, durable } = await storage
        .deferDurability(() =>
          storage.db.transaction().execute(async (trx) => {
            // A project's calls are stored as one: the dictionaries and the events table see one sorted batch.
            const done: Awaited<ReturnType<typeof storeCalls>>[] = [];
            for (const projectCalls of projects) done.push(await storeCalls(trx, storage, dictionary, projectCalls));
            // Last and in key order: a project's row stays locked only for the commit, and writers side by side lock rows in one order.
            for (const { pending, notFound, visits } of done) {
              if (notFound !== null) await countNotFound(trx, notFound.projectKey, notFound.days);
              if (pending === null) continue;
              const whole = await claimVisits(trx, storage.profile, dictionary, pending.project_key, visits.epoch);
              const doubts = visitDoubts(visits, whole);
              if (doubts !== null) pending.visits = doubts;
              await queueBatch(trx, storage.profile, pending, visitWriter(dictionary));
            }
            return done;
          }),
        )
        .catch((error: unknown) => {
          // The visits assigned to the failed views are in memory but not stored: start those projects again from the raw events.
          for (const [{ key }] of projects) forgetVisits(dictionary, key);
          throw error;
        });
      // The visitor index grows fastest: looked up by hash with stale statistics, it would be scanned whole.
      statistics?.wrote({ analytics_visitors: outcomes.reduce((sum, outcome) => sum + outcome.freshVisitors, 0) });
      const results = new Map<Call, Stored>();
      outcomes.forEach((outcome, index) => {
        const { key } = projects[index][0];
        dictionary.learnPaths(key, outcome.paths);
        for (const [agent, id] of outcome.agents) dictionary.learnAgent(agent, id);
        learnAgentTraits(dictionary, outcome.traits);
        for (const [host, id] of outcome.referrers) dictionary.learnReferrer(host, id);
        for (const entry of outcome.learned) dictionary.identities.set(key, entry.key, entry.agentId, entry.visitorId);
        if (outcome.complete) dictionary.identities.markComplete(key, outcome.complete.counter, outcome.complete.generation);
        freshVisitors += outcome.freshVisitors;
        projects[index].forEach((call, at) => results.set(call, outcome.results[at]));
        signals.emit('events-committed', key);
      });
      return { results: calls.map((call) => results.get(call)!), durable };
    },
    size: (call) => call.events.length,
    maxSize: maxEventsPerCommit,
    concurrency: storage.profile.concurrentWrites,
    // Side by side, a transaction of one project inserts into the dictionaries in one fixed order (paths,
    // agents, referrers, visitors, each sorted), so two of them cannot deadlock; calls of several projects
    // in one transaction would revisit the shared ones (agents, referrers). The database shares a log
    // flush among concurrent commits itself.
    groupKey: storage.profile.concurrentWrites > 1 ? (call) => call.key : undefined,
    async afterGroup() {
      // One merge at a time. A failed merge leaves the visitors in the recent table, where lookups still find them;
      // a later group retries. On a writing thread the next groups go on meanwhile (mergeRecentVisitorsBeside).
      if (merging !== null || !recentMergeDue(storage.profile, freshVisitors)) return;
      const added = freshVisitors;
      freshVisitors = 0;
      merging = mergeRecentVisitorsBeside(storage, added)
        .catch(() => false)
        .then((merged) => {
          // Moved into the index, the logged visitors need no copy here: it is read anew from what the log holds now.
          if (merged) dictionary.visitorLog.forget();
          else freshVisitors += added;
          merging = null;
        });
      if (storage.writer === null) await merging;
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
