import type { MarkdownRequest } from '../model/markdown-request.ts';
import type { Verification } from '../model/verification.ts';
import type { Kysely } from 'kysely';
import type { Database } from '../../storage/schema.ts';
import { breakdownEntries } from '../ingest/breakdown-entries.ts';
import type { Dictionary } from '../ingest/dense-ids.ts';
import { allBreakdownKinds, decodeBreakdownBatch, type BreakdownEntry, type BreakdownKind } from '../model/breakdown-batch.ts';
import { decodeDaySet, type DaySet } from '../model/day-set.ts';
import { dayOf, splitRange } from '../model/days.ts';
import { inSnapshot } from '../../storage/snapshot.ts';
import type { QueryCaches, QueryState } from './caches.ts';
import { rawEventsIn, userAgents } from './read-sources.ts';

/** A decoded breakdown day: per agent or referrer id (where a day set has path ids), views and visitors. */
export interface BreakdownDay {
  day: number;
  kind: BreakdownKind;
  /** The stored row's revision the set was decoded at. */
  revision: number;
  set: DaySet;
}

/** What a breakdown counts, read in one snapshot: whole days' sets plus loose entries (pending or partial-day). */
export interface BreakdownSources {
  days: BreakdownDay[];
  loose: BreakdownEntry[];
}

/** Breakdown entries of [from, to) straight from the raw events (partial days, and rebuilds). */
export async function rawBreakdowns(trx: Kysely<Database>, dictionary: Dictionary, projectKey: number, from: number, to: number): Promise<BreakdownEntry[]> {
  const rows = await rawEventsIn(trx, projectKey, from, to)
    .select(['at', 'agent_id', 'visitor_id', 'markdown', 'status', 'verification', 'referrer_id', 'country', 'source_id', 'entry', 'path_id'])
    .execute();
  const agents = await userAgents(trx, dictionary, new Set(rows.map((row) => Number(row.agent_id))));
  const entries: BreakdownEntry[] = [];
  for (const row of rows) {
    const day = dayOf(Number(row.at));
    const visitor = Number(row.visitor_id);
    const agentId = Number(row.agent_id);
    const view = {
      userAgent: agents.get(agentId)!,
      agentId,
      markdown: Number(row.markdown) as MarkdownRequest,
      status: row.status === null ? null : Number(row.status),
      verification: Number(row.verification) as Verification,
      referrerId: row.referrer_id === null ? null : Number(row.referrer_id),
      country: row.country,
      sourceId: row.source_id === null ? null : Number(row.source_id),
      entry: Number(row.entry),
      pathId: Number(row.path_id),
    };
    breakdownEntries(view, (kind, key) => entries.push({ day, kind, key, visitor }));
  }
  return entries;
}

/** A breakdown day's key and revision, without its set. */
export type BreakdownRevision = Pick<BreakdownDay, 'day' | 'kind' | 'revision'>;

/** The keys and revisions of the breakdown days of `kinds` in [firstDay, endDay), from the key's covering index. */
export async function breakdownRevisions(
  trx: Kysely<Database>,
  projectKey: number,
  firstDay: number,
  endDay: number,
  kinds: readonly BreakdownKind[],
): Promise<BreakdownRevision[]> {
  const rows = await trx
    .selectFrom('analytics_breakdown_days')
    .select(['day', 'kind', 'revision'])
    .where('project_key', '=', projectKey)
    .where('day', '>=', firstDay)
    .where('day', '<', endDay)
    .where('kind', 'in', [...kinds])
    .execute();
  return rows.map((row) => ({ day: Number(row.day), kind: Number(row.kind) as BreakdownKind, revision: Number(row.revision) }));
}

/** The breakdown days of `kinds` in [firstDay, endDay), decoding only those whose revision is not cached. */
export async function loadBreakdownDays(
  trx: Kysely<Database>,
  caches: QueryCaches,
  projectKey: number,
  firstDay: number,
  endDay: number,
  kinds: readonly BreakdownKind[],
): Promise<BreakdownDay[]> {
  const revisions = await breakdownRevisions(trx, projectKey, firstDay, endDay, kinds);
  const days: BreakdownDay[] = [];
  const stale = new Map<string, number>();
  for (const row of revisions) {
    const cacheKey = `${projectKey}:breakdown:${row.day}:${row.kind}`;
    const set = caches.cachedDay(cacheKey, row.revision);
    if (set) days.push({ ...row, set });
    else stale.set(cacheKey, row.revision);
  }
  const staleDays = [...new Set([...stale.keys()].map((key) => Number(key.split(':')[2])))];
  for (let start = 0; start < staleDays.length; start += 100) {
    const rows = await trx
      .selectFrom('analytics_breakdown_days')
      .select(['day', 'kind', 'revision', 'data'])
      .where('project_key', '=', projectKey)
      .where('day', 'in', staleDays.slice(start, start + 100))
      .where('kind', 'in', [...kinds])
      .execute();
    for (const row of rows) {
      const cacheKey = `${projectKey}:breakdown:${row.day}:${row.kind}`;
      if (stale.get(cacheKey) !== Number(row.revision)) continue;
      const set = decodeDaySet(row.data);
      caches.storeDay(cacheKey, Number(row.revision), set);
      days.push({ day: Number(row.day), kind: Number(row.kind) as BreakdownKind, revision: Number(row.revision), set });
    }
  }
  return days;
}

/**
 * Decodes a project's breakdown days of the last `spanDays` days with data into the cache, so the
 * first breakdown query after views arrive does not pay for it (run by the background loop).
 */
export async function warmBreakdownDays(state: Pick<QueryState, 'storage' | 'caches'>, projectKey: number, spanDays: number): Promise<void> {
  await inSnapshot(state.storage, async (trx) => {
    const { last } = await trx
      .selectFrom('analytics_breakdown_days')
      .select((eb) => eb.fn.max('day').as('last'))
      .where('project_key', '=', projectKey)
      .executeTakeFirstOrThrow();
    if (last === null) return;
    await loadBreakdownDays(trx, state.caches, projectKey, Number(last) + 1 - spanDays, Number(last) + 1, allBreakdownKinds);
  });
}

/** Breakdown entries of `kinds` of committed batches not yet folded, in [firstDay, endDay). */
export async function pendingBreakdowns(
  trx: Kysely<Database>,
  projectKey: number,
  firstDay: number,
  endDay: number,
  kinds: readonly BreakdownKind[],
): Promise<BreakdownEntry[]> {
  const wanted = new Set(kinds);
  const entries: BreakdownEntry[] = [];
  const pending = await trx
    .selectFrom('analytics_pending')
    .select('breakdowns')
    .where('project_key', '=', projectKey)
    .where('breakdowns', 'is not', null)
    .execute();
  for (const batch of pending)
    for (const entry of decodeBreakdownBatch(batch.breakdowns)) if (entry.day >= firstDay && entry.day < endDay && wanted.has(entry.kind)) entries.push(entry);
  return entries;
}

/** Reads the breakdown sources of `kinds` over [from, to) inside `trx`. */
export async function readBreakdownSources(
  trx: Kysely<Database>,
  caches: QueryCaches,
  dictionary: Dictionary,
  projectKey: number,
  from: number,
  to: number,
  kinds: readonly BreakdownKind[],
): Promise<BreakdownSources> {
  const { firstDay, endDay, partial } = splitRange(from, to);
  const wanted = new Set(kinds);
  const sources: BreakdownSources = { days: [], loose: [] };
  if (endDay > firstDay) {
    sources.days = await loadBreakdownDays(trx, caches, projectKey, firstDay, endDay, kinds);
    sources.loose = await pendingBreakdowns(trx, projectKey, firstDay, endDay, kinds);
  }
  for (const [start, end] of partial)
    for (const entry of await rawBreakdowns(trx, dictionary, projectKey, start, end)) if (wanted.has(entry.kind)) sources.loose.push(entry);
  return sources;
}
