/**
 * Visit repair: the fold's check of ingestion's visit guesses (ingest/dimensions/visits.ts). For each
 * visitor with doubtful views it reads the visitor's raw events of the days around them (widening a
 * day at a time until every visit holding a doubtful view is whole: no view within 30 minutes beyond
 * either end), recomputes those visits as `quire analytics rebuild` does (fold/rebuild-dimensions.ts:
 * time order, then row order; a visit's source is its first view's referring site), and where a view's
 * entry flag or source changed, rewrites the raw event and moves the view's source and entry-page
 * entries in the breakdown days. Whether the visitor still belongs to a value's set on a day is decided
 * from all its raw events of that day, which is why whole days are read.
 *
 * It runs in the fold's transaction after every pending batch it can see was folded, so the breakdown
 * days hold every visible view's entries, and nothing a repair changes is still in a pending batch.
 */
import { sql, type Kysely } from 'kysely';
import type { DialectProfile } from '../../storage/dialect.ts';
import type { Database } from '../../storage/schema.ts';
import { visitEntries } from '../ingest/breakdown-entries.ts';
import { visitGapMs } from '../ingest/dimensions/visits.ts';
import type { BreakdownKind } from '../model/breakdown-batch.ts';
import type { ClassCode } from '../model/class-codes.ts';
import { dayMs, dayOf, eventDay } from '../model/days.ts';
import { adjustBreakdowns, type BreakdownChange } from './breakdown-days.ts';

interface RawView {
  id: string;
  /** Row order among views of one millisecond: rowid, or ctid's (page, item). */
  order: number;
  at: number;
  pathId: number;
  referrerId: number | null;
  sourceId: number | null;
  entry: number;
  counted: ClassCode | null;
  /** The exact entry flag and source, once computed. */
  newEntry?: number;
  newSource?: number | null;
}

interface VisitorViews {
  firstDay: number;
  lastDay: number;
  views: RawView[];
}

const rowOrder = (id: string) => {
  const tid = /^\((\d+),(\d+)\)$/.exec(id);
  return tid ? Number(tid[1]) * 65_536 + Number(tid[2]) : Number(id);
};

/** Visitors named in one statement; more than that on one day, and the day is read whole (one pass of its index) instead. */
const visitorsPerRead = 500;

/** Reads the raw events of `visitors` on `day` into `loaded`. */
async function readDay(trx: Kysely<Database>, profile: DialectProfile, projectKey: number, day: number, visitors: number[], loaded: Map<number, VisitorViews>) {
  const whole = visitors.length > visitorsPerRead;
  const wanted = new Set(visitors);
  const rows = await trx
    .selectFrom('analytics_events')
    .select([
      sql<string>`cast(${sql.raw(profile.rowId.column)} as text)`.as('id'),
      'visitor_id',
      'at',
      'path_id',
      'referrer_id',
      'source_id',
      'entry',
      'counted',
    ])
    .where('project_key', '=', projectKey)
    .where(eventDay, '=', day)
    .$if(!whole, (query) => query.where('visitor_id', 'in', visitors))
    .execute();
  for (const row of rows)
    if (wanted.has(Number(row.visitor_id)))
      loaded.get(Number(row.visitor_id))!.views.push({
        id: row.id,
        order: rowOrder(row.id),
        at: Number(row.at),
        pathId: Number(row.path_id),
        referrerId: row.referrer_id === null ? null : Number(row.referrer_id),
        sourceId: row.source_id === null ? null : Number(row.source_id),
        entry: Number(row.entry),
        counted: row.counted === null ? null : (Number(row.counted) as ClassCode),
      });
}

/** Splits a visitor's views (time order) into visits: index ranges [start, end). */
function visitsOf(views: RawView[]): [number, number][] {
  const visits: [number, number][] = [];
  for (let index = 0; index < views.length; index++) {
    if (index === 0 || views[index].at - views[index - 1].at > visitGapMs) visits.push([index, index + 1]);
    else visits[visits.length - 1][1] = index + 1;
  }
  return visits;
}

/**
 * The visits holding a doubtful time, or the days to read first: a visit that reaches within a gap of the
 * days read may go on beyond them.
 */
function doubtfulVisits(state: VisitorViews, times: number[]): { visits: [number, number][]; before: boolean; after: boolean } {
  const { views } = state;
  const visits = visitsOf(views).filter(([start, end]) => times.some((time) => time >= views[start].at && time <= views[end - 1].at));
  let before = false;
  let after = false;
  for (const [start, end] of visits) {
    if (views[start].at - visitGapMs < state.firstDay * dayMs) before = true;
    if (views[end - 1].at + visitGapMs >= (state.lastDay + 1) * dayMs) after = true;
  }
  return { visits, before, after };
}

/** Recomputes the visits of `doubts` (visitor → doubtful view times); returns the number of views corrected. */
export async function repairVisits(trx: Kysely<Database>, profile: DialectProfile, projectKey: number, doubts: Map<number, number[]>): Promise<number> {
  const loaded = new Map<number, VisitorViews>();
  // Days to read, each with the visitors to read on it.
  const toRead = new Map<number, number[]>();
  const want = (day: number, visitor: number) => {
    if (!toRead.has(day)) toRead.set(day, []);
    toRead.get(day)!.push(visitor);
  };
  for (const [visitor, times] of doubts) {
    let earliest = Infinity;
    let latest = -Infinity;
    for (const time of times) {
      earliest = Math.min(earliest, time);
      latest = Math.max(latest, time);
    }
    const firstDay = dayOf(earliest - visitGapMs);
    const lastDay = dayOf(latest + visitGapMs);
    loaded.set(visitor, { firstDay, lastDay, views: [] });
    for (let day = firstDay; day <= lastDay; day++) want(day, visitor);
  }
  const repaired = new Map<number, [number, number][]>();
  while (toRead.size > 0) {
    const reading = [...toRead].sort((a, b) => a[0] - b[0]);
    toRead.clear();
    const touched = new Set<number>();
    for (const [day, visitors] of reading) {
      await readDay(trx, profile, projectKey, day, visitors, loaded);
      for (const visitor of visitors) touched.add(visitor);
    }
    for (const visitor of touched) {
      const state = loaded.get(visitor)!;
      state.views.sort((a, b) => a.at - b.at || a.order - b.order);
      const { visits, before, after } = doubtfulVisits(state, doubts.get(visitor)!);
      if (before) want(--state.firstDay, visitor);
      if (after) want(++state.lastDay, visitor);
      if (!before && !after) repaired.set(visitor, visits);
    }
  }
  const changes: BreakdownChange[] = [];
  const rewrites = new Map<string, { entry: number; sourceId: number | null; ids: string[] }>();
  let corrected = 0;
  for (const [visitor, visits] of repaired) {
    const { views } = loaded.get(visitor)!;
    const changedDays = new Set<number>();
    for (const [start, end] of visits) {
      const source = views[start].referrerId;
      for (let index = start; index < end; index++) {
        const view = views[index];
        view.newEntry = index === start ? 1 : 0;
        view.newSource = source;
        if (view.newEntry === view.entry && view.newSource === view.sourceId) continue;
        corrected++;
        changedDays.add(dayOf(view.at));
        // A view moved to another source rewrites its day's source record even where the counts come out the
        // same (two views swapping sources): value pages computed from the raw events check that record's revision.
        if (view.newSource !== view.sourceId)
          visitEntries(view.counted, { pathId: view.pathId, entry: 0, sourceId: view.newSource }, (kind, key) =>
            changes.push({ day: dayOf(view.at), kind, key, visitor, views: 0, member: null }),
          );
        const key = `${view.newEntry}:${view.newSource}`;
        if (!rewrites.has(key)) rewrites.set(key, { entry: view.newEntry, sourceId: view.newSource, ids: [] });
        rewrites.get(key)!.ids.push(view.id);
      }
    }
    for (const day of changedDays) changes.push(...dayChanges(views, day, visitor));
  }
  for (const { entry, sourceId, ids } of rewrites.values()) {
    for (let start = 0; start < ids.length; start += 500) {
      const named = ids.slice(start, start + 500).map((id) => sql`cast(${id} as ${sql.raw(profile.rowId.type)})`);
      await trx
        .updateTable('analytics_events')
        .set({ entry, source_id: sourceId })
        .where('project_key', '=', projectKey)
        .where(sql.raw(profile.rowId.column), 'in', named)
        .execute();
    }
  }
  await adjustBreakdowns(trx, profile, projectKey, changes);
  return corrected;
}

/** How a visitor's source and entry-page entries of one day change, from all its views of that day before and after the repair. */
function dayChanges(views: RawView[], day: number, visitor: number): BreakdownChange[] {
  const counts = new Map<string, { kind: BreakdownKind; key: number; before: number; after: number }>();
  const count = (side: 'before' | 'after') => (kind: BreakdownKind, key: number) => {
    const id = `${kind}:${key}`;
    let entry = counts.get(id);
    if (!entry) counts.set(id, (entry = { kind, key, before: 0, after: 0 }));
    entry[side]++;
  };
  for (const view of views) {
    if (dayOf(view.at) !== day) continue;
    visitEntries(view.counted, view, count('before'));
    visitEntries(
      view.counted,
      { pathId: view.pathId, entry: view.newEntry ?? view.entry, sourceId: view.newSource === undefined ? view.sourceId : view.newSource },
      count('after'),
    );
  }
  const changes: BreakdownChange[] = [];
  for (const { kind, key, before, after } of counts.values()) {
    if (before === after) continue;
    changes.push({ day, kind, key, visitor, views: after - before, member: before === 0 ? true : after === 0 ? false : null });
  }
  return changes;
}
