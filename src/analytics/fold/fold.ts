import type { Kysely } from 'kysely';
import { onWritingThread, type DialectProfile, type Storage } from '../../storage/dialect.ts';
import type { Database } from '../../storage/schema.ts';
import { inSnapshot } from '../../storage/snapshot.ts';
import { existingProjectKey } from '../ingest/dense-ids.ts';
import type { IngestState } from '../ingest/ingest.ts';
import { classCodes, type ClassCode } from '../model/class-codes.ts';
import { encodeDaySet, type PathEntry } from '../model/day-set.ts';
import { readBreakdownBatch } from '../model/breakdown-batch.ts';
import { readPendingBatch, type CountedView } from '../model/pending-batch.ts';
import { readVisitDoubts, VisitDoubts } from '../model/visit-doubts.ts';
import { BreakdownGroups, breakdownKeys, mergeBreakdowns } from './breakdown-days.ts';
import { dayKey, mergeDay, readDays, writeDay, type DayKey, type DayUpdate, type StoredDay } from './stored-days.ts';
import { repairVisits } from './visit-repair.ts';

/** Pending batches folded per transaction: bounds how long day-set rows stay locked, and a fold's memory. */
const batchesPerFold = 200;

interface Group {
  day: number;
  classCode: ClassCode;
  paths: Map<number, { visitors: number[]; views: number }>;
}

/** Collects counted views into per day-and-class, per path entries (numeric keys: this runs per view). */
export class ViewGroups {
  readonly #groups = new Map<number, Group>();
  #last: Group | undefined;

  add(day: number, pathId: number, classCode: ClassCode, visitor: number): void {
    let group = this.#last;
    if (group === undefined || group.day !== day || group.classCode !== classCode) {
      const key = day * classCodes.length + classCode;
      group = this.#groups.get(key);
      if (!group) this.#groups.set(key, (group = { day, classCode, paths: new Map() }));
      this.#last = group;
    }
    let path = group.paths.get(pathId);
    if (!path) group.paths.set(pathId, (path = { visitors: [], views: 0 }));
    path.visitors.push(visitor);
    path.views++;
  }

  /** The groups keyed `day:class`. */
  result(): Map<string, Group> {
    return new Map([...this.#groups.values()].map((group) => [`${group.day}:${group.classCode}`, group]));
  }
}

export function groupViews(views: Iterable<CountedView>): Map<string, Group> {
  const groups = new ViewGroups();
  for (const view of views) groups.add(view.day, view.pathId, view.classCode, view.visitor);
  return groups.result();
}

/** The day-set rows' keys of groups, as `readDays` takes them. */
const daySetKeys = (groups: Iterable<{ day: number; classCode: ClassCode }>): DayKey[] => [...groups].map(({ day, classCode }) => ({ day, part: classCode }));

/** Locks the day-set rows of `keys` (creating empty ones first) for a writer that replaces them (a rebuild). */
export async function lockDaySets(
  trx: Kysely<Database>,
  profile: DialectProfile,
  projectKey: number,
  keys: { day: number; classCode: ClassCode }[],
): Promise<void> {
  await readDays(trx, profile, 'analytics_day_sets', projectKey, daySetKeys(keys), { lock: true, entries: false });
}

export async function writeDaySet(
  trx: Kysely<Database>,
  projectKey: number,
  day: number,
  classCode: ClassCode,
  entries: Map<number, PathEntry>,
): Promise<void> {
  await writeDay(trx, 'analytics_day_sets', projectKey, { day, part: classCode }, encodeDaySet(entries));
}

/** Grouped views unioned into the day sets read, encoded. */
const mergeViews = (current: Map<string, StoredDay>, groups: Iterable<Group>): DayUpdate[] =>
  [...groups].map((group) => mergeDay({ day: group.day, part: group.classCode }, current.get(dayKey(group.day, group.classCode)), group.paths));

/**
 * What one fold writes, computed from one snapshot: the pending batches it takes (up to `batchesPerFold`,
 * oldest first; `drained` when that was all of them), the day sets and breakdown days with those batches
 * unioned in, each with the revision it was computed from, the batches' visit doubts, and the project's
 * fold turns when read.
 */
interface FoldPlan {
  turns: number;
  batchIds: number[];
  drained: boolean;
  daySets: DayUpdate[];
  breakdownDays: DayUpdate[];
  doubts: VisitDoubts;
}

/** Reads the oldest pending batches of a project and the days they touch, and computes the fold of them (`lock`: the rows locked, in the fold's own transaction). */
async function planFold(trx: Kysely<Database>, profile: DialectProfile, projectKey: number, lock: boolean): Promise<FoldPlan> {
  const turnsRow = await trx.selectFrom('analytics_fold_turns').select('turns').where('project_key', '=', projectKey).executeTakeFirst();
  const batches = await trx
    .selectFrom('analytics_pending')
    .select(['id', 'tuples', 'breakdowns', 'visits'])
    .where('project_key', '=', projectKey)
    .orderBy('id')
    .limit(batchesPerFold)
    .$if(lock && profile.rowLocks, (query) => query.forUpdate())
    .execute();
  const grouping = new ViewGroups();
  const breakdowns = new BreakdownGroups();
  const doubts = new VisitDoubts();
  for (const batch of batches) {
    readPendingBatch(batch.tuples, (day, pathId, classCode, visitor) => grouping.add(day, pathId, classCode, visitor));
    readBreakdownBatch(batch.breakdowns, (day, kind, key, visitor) => breakdowns.add(day, kind, key, visitor));
    readVisitDoubts(batch.visits, (visitor, at) => doubts.add(visitor, at));
  }
  const groups = [...grouping.result().values()];
  const breakdownGroups = [...breakdowns.groups.values()];
  const read = { lock, entries: true };
  const daySets = await readDays(trx, profile, 'analytics_day_sets', projectKey, daySetKeys(groups), read);
  const breakdownDays = await readDays(trx, profile, 'analytics_breakdown_days', projectKey, breakdownKeys(breakdownGroups), read);
  return {
    turns: Number(turnsRow?.turns ?? 0),
    batchIds: batches.map((batch) => Number(batch.id)),
    drained: batches.length < batchesPerFold,
    daySets: mergeViews(daySets, groups),
    breakdownDays: mergeBreakdowns(breakdownDays, breakdownGroups),
    doubts,
  };
}

/**
 * Whether a plan made in an earlier snapshot can be written now, in the fold's transaction: no fold ran
 * since (the project's fold turns moved by one, this fold's), every pending batch it took is still there,
 * and every row it writes is at the revision it was computed from. A rebuild of a day moves every row of
 * that day on and takes that day's views out of the pending batches, so a plan that took any of them no
 * longer holds; one that took none of them is unaffected. The rows are locked (and created) as a fold in
 * its own transaction locks them.
 */
async function stillCurrent(trx: Kysely<Database>, profile: DialectProfile, projectKey: number, plan: FoldPlan, turns: number): Promise<boolean> {
  if (turns !== plan.turns + 1) return false;
  for (const [table, updates] of [
    ['analytics_day_sets', plan.daySets],
    ['analytics_breakdown_days', plan.breakdownDays],
  ] as const) {
    const stored = await readDays(
      trx,
      profile,
      table,
      projectKey,
      updates.map((update) => update.key),
      { lock: true, entries: false },
    );
    if (updates.some((update) => stored.get(dayKey(update.key.day, update.key.part))?.revision !== update.revision)) return false;
  }
  const present = await trx
    .selectFrom('analytics_pending')
    .select((eb) => eb.fn.countAll<number | string>().as('count'))
    .where('id', 'in', plan.batchIds)
    .executeTakeFirstOrThrow();
  return Number(present.count) === plan.batchIds.length;
}

/** Writes a plan's day sets and breakdown days and deletes the batches it folded. */
async function writePlan(trx: Kysely<Database>, projectKey: number, plan: FoldPlan): Promise<void> {
  for (const update of plan.daySets) await writeDay(trx, 'analytics_day_sets', projectKey, update.key, update.data);
  for (const update of plan.breakdownDays) await writeDay(trx, 'analytics_breakdown_days', projectKey, update.key, update.data);
  if (plan.batchIds.length > 0) await trx.deleteFrom('analytics_pending').where('id', 'in', plan.batchIds).execute();
}

/** Database errors after which a fold's transaction can simply run again (PostgreSQL: serialization failure, deadlock). */
const retryable = new Set(['40001', '40P01']);

/**
 * One fold transaction: takes this project's turn (folds of a project run one after another, each seeing
 * the last one's commit: an update of its `analytics_fold_turns` row, which in a PostgreSQL snapshot
 * fails when another fold committed since), unions up to `batchesPerFold` pending batches into the day
 * sets and breakdown days, and deletes them. Their visit doubts are repaired (`repair`) when the
 * transaction took every pending batch it can see; otherwise they are kept for a fold that does.
 * `planned`, a plan computed beforehand in a snapshot that took no write lock, is written as it is when
 * nothing it read has changed (`stillCurrent`); otherwise the fold is computed again here.
 */
async function foldSome(
  trx: Kysely<Database>,
  profile: DialectProfile,
  projectKey: number,
  repair: boolean,
  planned?: FoldPlan,
): Promise<{ batches: number; corrected: number }> {
  const { turns } = await trx
    .updateTable('analytics_fold_turns')
    .set((eb) => ({ turns: eb('turns', '+', 1) }))
    .where('project_key', '=', projectKey)
    .returning('turns')
    .executeTakeFirstOrThrow();
  const plan =
    planned !== undefined && (await stillCurrent(trx, profile, projectKey, planned, Number(turns))) ? planned : await planFold(trx, profile, projectKey, true);
  await writePlan(trx, projectKey, plan);
  const { batchIds, drained, doubts } = plan;
  if (!(repair && drained)) {
    if (doubts.count > 0)
      await trx
        .insertInto('analytics_visit_doubts')
        .values({ project_key: projectKey, visits: Buffer.from(doubts.finish()) })
        .execute();
    return { batches: batchIds.length, corrected: 0 };
  }
  const kept = await trx.selectFrom('analytics_visit_doubts').select(['id', 'visits']).where('project_key', '=', projectKey).execute();
  const byVisitor = new Map<number, number[]>();
  const note = (visitor: number, at: number) => {
    if (!byVisitor.has(visitor)) byVisitor.set(visitor, []);
    byVisitor.get(visitor)!.push(at);
  };
  readVisitDoubts(doubts.count > 0 ? doubts.finish() : null, note);
  for (const row of kept) readVisitDoubts(row.visits, note);
  if (kept.length > 0)
    await trx
      .deleteFrom('analytics_visit_doubts')
      .where(
        'id',
        'in',
        kept.map((row) => row.id),
      )
      .execute();
  const corrected = byVisitor.size > 0 ? await repairVisits(trx, profile, projectKey, byVisitor) : 0;
  return { batches: batchIds.length, corrected };
}

/**
 * Folds committed pending batches of a project into its day sets. Each transaction takes some
 * batches, unions them into the day sets and deletes them; a query reads day sets and pending batches
 * in one snapshot, so each view is in exactly one of them. With `repair` (the default), the last
 * transaction also repairs the visits ingestion doubted (visit-repair.ts); the background loop folds
 * without it and repairs once views have been quiet for a moment, so a repair reads each day once for
 * many doubts; `onRepaired` hears of a repair that changed views (the indexes over entry pages and
 * sources, and the value pages, are then stale). Returns the number of batches folded.
 */
export async function foldPending(storage: Storage, projectKey: number, options: { repair?: boolean; onRepaired?: () => void } = {}): Promise<number> {
  const repair = options.repair ?? true;
  // Written only when missing (once per project): a write, even one that changes nothing, waits for a write turn
  // and then for a flush of the log, once per fold.
  const turnsRow = await storage.db.selectFrom('analytics_fold_turns').select('project_key').where('project_key', '=', projectKey).executeTakeFirst();
  if (turnsRow === undefined) {
    await storage.db
      .insertInto('analytics_fold_turns')
      .values({ project_key: projectKey, turns: 0 })
      .onConflict((conflict) => conflict.doNothing())
      .execute();
  }
  let folded = 0;
  for (;;) {
    let result: { batches: number; corrected: number };
    for (let attempt = 0; ; attempt++) {
      try {
        // Without a repair, the fold is computed in a snapshot that takes no write lock, and its transaction only
        // checks and writes it: decoding and unioning the sets held the write lock, and every commit of ingestion
        // waited for it (a fifth of the time under a steady load). A repair reads what the transaction sees.
        const planned = repair ? undefined : await storage.readSnapshot((trx) => planFold(trx, storage.profile, projectKey, false));
        if (planned?.batchIds.length === 0) {
          result = { batches: 0, corrected: 0 };
          break;
        }
        result = await inSnapshot(storage, (trx) => foldSome(trx, storage.profile, projectKey, repair, planned));
        break;
      } catch (error) {
        if (attempt >= 20 || !retryable.has((error as { code?: string }).code ?? '')) throw error;
        await new Promise((resolve) => setTimeout(resolve, 5 + Math.random() * 20 * (attempt + 1)));
      }
    }
    // Answers changed without a commit of ingestion: cached rankings must not be served again. Outside the
    // fold's snapshot, where ingestion moves the version on concurrently.
    if (result.corrected > 0) {
      await storage.db
        .updateTable('analytics_projects')
        .set((eb) => ({ version: eb('version', '+', 1) }))
        .where('project_key', '=', projectKey)
        .execute();
      options.onRepaired?.();
    }
    folded += result.batches;
    if (result.batches < batchesPerFold) return folded;
  }
}

/** `foldPending` on the writing thread (Storage.writer), with an answer that crosses threads as data. */
export async function foldOnThread(storage: Storage, projectKey: number, repair: boolean): Promise<{ folded: number; repaired: boolean }> {
  let repaired = false;
  const folded = await foldPending(storage, projectKey, { repair, onRepaired: () => (repaired = true) });
  return { folded, repaired };
}

/**
 * `foldPending` for the background loop: on the storage's writing thread where it has one (SQLite),
 * whose connection takes write turns with the serving thread's, so that decoding batches and day sets,
 * unioning and encoding them, and the fold's statements run beside the event loop, not on it.
 */
export async function foldInBackground(storage: Storage, projectKey: number, options: { repair: boolean; onRepaired?: () => void }): Promise<number> {
  const { folded, repaired } = await onWritingThread(storage, new URL(import.meta.url), foldOnThread, projectKey, options.repair);
  if (repaired) options.onRepaired?.();
  return folded;
}

/** Folds one project's pending batches now (after an import, say), by its id; nothing to do for a project that recorded nothing. */
export async function foldProject(analytics: Pick<IngestState, 'storage' | 'ids'>, projectId: string): Promise<number> {
  const key = await existingProjectKey(analytics.storage.db, analytics.ids, projectId);
  return key === undefined ? 0 : foldPending(analytics.storage, key);
}

/** Project keys with pending batches or visit doubts (folded by the periodic sweep, including other processes' leftovers). */
export async function projectsWithPending(db: Kysely<Database>): Promise<number[]> {
  const rows = await db.selectFrom('analytics_pending').select('project_key').union(db.selectFrom('analytics_visit_doubts').select('project_key')).execute();
  return rows.map((row) => Number(row.project_key));
}
