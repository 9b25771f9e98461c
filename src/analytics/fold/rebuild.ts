import type { Kysely } from 'kysely';
import type { Storage } from '../../storage/dialect.ts';
import type { Database } from '../../storage/schema.ts';
import { inSnapshot } from '../../storage/snapshot.ts';
import { existingProjectKey, type Dictionary } from '../ingest/dense-ids.ts';
import { classCodes } from '../model/class-codes.ts';
import { sortedDistinct, type PathEntry } from '../model/day-set.ts';
import { dayMs, eventDay } from '../model/days.ts';
import { decodeBreakdownBatch, encodeBreakdownBatch } from '../model/breakdown-batch.ts';
import { decodePendingBatch, encodePendingBatch } from '../model/pending-batch.ts';
import { rawBreakdowns } from '../query/breakdown-sources.ts';
import { rawViews } from '../query/read-sources.ts';
import { BreakdownGroups, emptyDay, storeBreakdowns } from './breakdown-days.ts';
import { foldPending, groupViews, lockDaySets, writeDaySet } from './fold.ts';
import { rebuildDimensions } from './rebuild-dimensions.ts';

/** PostgreSQL errors after which the same transaction can simply run again. */
const retryable = new Set(['40001', '40P01']);

/** What a rebuild uses of the process's analytics state. */
export interface RebuildState {
  storage: Storage;
  ids: Dictionary;
}

/**
 * Recomputes one day's sets from its raw events, in one transaction: the day-set rows are locked,
 * so folds wait, and pending views of that day are dropped because the raw events already hold
 * them (all read in one snapshot). Queries keep answering from the previous sets meanwhile.
 */
async function rebuildDay(trx: Kysely<Database>, state: RebuildState, projectKey: number, day: number): Promise<number> {
  const { profile } = state.storage;
  await lockDaySets(
    trx,
    profile,
    projectKey,
    classCodes.map((classCode) => ({ day, classCode })),
  );
  const pending = await trx
    .selectFrom('analytics_pending')
    .select(['id', 'tuples', 'breakdowns'])
    .where('project_key', '=', projectKey)
    .$if(profile.rowLocks, (query) => query.forUpdate())
    .execute();
  const views = await rawViews(trx, state.ids, projectKey, day * dayMs, (day + 1) * dayMs);
  const groups = groupViews(views);
  for (const classCode of classCodes) {
    const entries = new Map<number, PathEntry>();
    for (const [pathId, path] of groups.get(`${day}:${classCode}`)?.paths ?? [])
      entries.set(pathId, { visitors: sortedDistinct(path.visitors), views: path.views });
    await writeDaySet(trx, projectKey, day, classCode, entries);
  }
  const breakdowns = new BreakdownGroups();
  emptyDay(breakdowns, day);
  for (const entry of await rawBreakdowns(trx, state.ids, projectKey, day * dayMs, (day + 1) * dayMs))
    breakdowns.add(entry.day, entry.kind, entry.key, entry.visitor);
  await storeBreakdowns(trx, profile, projectKey, breakdowns.groups.values(), true);
  for (const batch of pending) {
    const all = decodePendingBatch(batch.tuples);
    const rest = all.filter((view) => view.day !== day);
    const allEntries = decodeBreakdownBatch(batch.breakdowns);
    const restEntries = allEntries.filter((entry) => entry.day !== day);
    if (rest.length === all.length && restEntries.length === allEntries.length) continue;
    if (rest.length === 0 && restEntries.length === 0) await trx.deleteFrom('analytics_pending').where('id', '=', batch.id).execute();
    else {
      const breakdownBytes = restEntries.length === 0 ? null : Buffer.from(encodeBreakdownBatch(restEntries));
      await trx
        .updateTable('analytics_pending')
        .set({ tuples: Buffer.from(encodePendingBatch(rest)), breakdowns: breakdownBytes })
        .where('id', '=', batch.id)
        .execute();
    }
  }
  await trx
    .updateTable('analytics_projects')
    .set((eb) => ({ version: eb('version', '+', 1) }))
    .where('project_key', '=', projectKey)
    .execute();
  return views.length;
}

/** Recomputes every day set of a project that still has raw events; returns days and counted views. */
export async function rebuildProject(
  state: RebuildState,
  projectId: string,
  onDay?: (done: number, total: number) => void,
): Promise<{ days: number; views: number }> {
  const { storage } = state;
  const key = await existingProjectKey(storage.db, state.ids, projectId);
  if (key === undefined) return { days: 0, views: 0 };
  await foldPending(storage, key);
  await rebuildDimensions(storage, state.ids, key);
  // Docs gaps' per-day evidence (feedback/gap-days.ts) is computed again from the raw rows on the next read.
  await storage.db.deleteFrom('analytics_gap_days').where('project_key', '=', key).execute();
  const span = await storage.db
    .selectFrom('analytics_events')
    .select((eb) => [eb.fn.min(eventDay).as('first'), eb.fn.max(eventDay).as('last')])
    .where('project_key', '=', key)
    .executeTakeFirstOrThrow();
  const complete = () => storage.db.updateTable('analytics_projects').set({ dimension_days: 1 }).where('project_key', '=', key).execute();
  if (span.first === null || span.last === null) {
    await complete();
    return { days: 0, views: 0 };
  }
  const firstDay = Number(span.first);
  const lastDay = Number(span.last);
  let views = 0;
  for (let day = firstDay; day <= lastDay; day++) {
    for (let attempt = 0; ; attempt++) {
      try {
        views += await inSnapshot(storage, (trx) => rebuildDay(trx, state, key, day));
        break;
      } catch (error) {
        if (attempt >= 5 || !retryable.has((error as { code?: string }).code ?? '')) throw error;
      }
    }
    onDay?.(day - firstDay + 1, lastDay - firstDay + 1);
  }
  // Every day now has the dimension kinds of the breakdown days: the dimension breakdowns can read them.
  await complete();
  return { days: lastDay - firstDay + 1, views };
}

/** Projects that have analytics data. */
export async function analyticsProjects(db: Kysely<Database>): Promise<string[]> {
  const rows = await db.selectFrom('analytics_projects').select('project_id').orderBy('project_id').execute();
  return rows.map((row) => row.project_id);
}
