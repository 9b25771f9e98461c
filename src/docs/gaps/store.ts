import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../../storage/schema.ts';
import type { DocsGapRow } from '../../storage/tables/gaps.ts';
import type { GapGroup } from './group.ts';

export const gapStatuses = ['open', 'in_progress', 'fixed', 'dismissed'] as const;
export type GapStatus = (typeof gapStatuses)[number];

/**
 * A new gap's id, from its project and first key: two processes that meet the same new group give it
 * the same id, so neither needs a lock, and the id never changes once stored.
 */
function gapIdOf(projectId: string, key: string): string {
  const input = `${projectId}\n${key}`;
  let id = gapIds.get(input);
  if (id === undefined) {
    // Bounded: a flood of new keys costs hashing again, never memory.
    if (gapIds.size >= maxCachedIds) gapIds.clear();
    gapIds.set(input, (id = `gap_${createHash('sha256').update(input).digest('hex').slice(0, 24)}`));
  }
  return id;
}

/** Ids already derived: a list derives one per group not stored yet, mostly the same from one read to the next. */
const gapIds = new Map<string, string>();
const maxCachedIds = 200_000;

/** The project's stored gaps and the keys each was seen under. */
export async function readStoredGaps(db: Kysely<Database>, projectId: string): Promise<{ gaps: Map<string, DocsGapRow>; keys: Map<string, string> }> {
  const [gaps, keys] = await Promise.all([
    db.selectFrom('docs_gaps').selectAll().where('project_id', '=', projectId).execute(),
    db.selectFrom('docs_gap_keys').select(['key', 'gap_id']).where('project_id', '=', projectId).execute(),
  ]);
  return { gaps: new Map(gaps.map((gap) => [gap.id, normalizeRow(gap)])), keys: new Map(keys.map((row) => [row.key, row.gap_id])) };
}

/** PostgreSQL answers bigint columns as strings. */
function normalizeRow(row: DocsGapRow): DocsGapRow {
  const number = (value: number | null) => (value === null ? null : Number(value));
  return {
    ...row,
    fixed_at: number(row.fixed_at),
    dismissed_evidence: number(row.dismissed_evidence),
    opened_notified_at: number(row.opened_notified_at),
    created_at: Number(row.created_at),
    updated_at: Number(row.updated_at),
  };
}

/** What `planGaps` found: each group's gap id, and the gaps and keys not stored yet. */
export interface GapPlan {
  ids: string[];
  newGaps: DocsGapRow[];
  newKeys: { project_id: string; key: string; gap_id: string }[];
}

/**
 * Gives each group its gap, writing nothing: the gap already seen under one of its keys (the oldest id
 * when a group joined several), else a new open gap whose id is a hash of the project and the group's
 * first key, so every process, and every read, gives it the same id. `stored` gets the new gaps and
 * keys, in memory only; `storeGaps` writes them, on the operations that change gaps. `claim` is the
 * id a write names: a new group it was derived from gets it.
 */
export function planGaps(
  projectId: string,
  groups: readonly GapGroup[],
  stored: { gaps: Map<string, DocsGapRow>; keys: Map<string, string> },
  options: { now?: number; claim?: string } = {},
): GapPlan {
  const now = options.now ?? Date.now();
  const { claim } = options;
  const newGaps: DocsGapRow[] = [];
  const newKeys: GapPlan['newKeys'] = [];
  const ids = groups.map((group) => {
    const known = group.keys.map((key) => stored.keys.get(key)).filter((id) => id !== undefined && stored.gaps.has(id));
    const oldest = known.map((id) => stored.gaps.get(id!)!).sort((a, b) => a.created_at - b.created_at || (a.id < b.id ? -1 : 1))[0];
    let id = oldest?.id;
    if (id === undefined) {
      // A write naming the id a read gave keeps it, though a key sorted before the first one joined the group since.
      id = claim !== undefined && !stored.gaps.has(claim) && isGapIdOf(projectId, group.keys, claim) ? claim : gapIdOf(projectId, group.keys[0]!);
      const row: DocsGapRow = {
        id,
        project_id: projectId,
        kind: group.kind,
        status: 'open',
        job_id: null,
        job_commit: null,
        fixed_at: null,
        fixed_evidence: null,
        dismissed_evidence: null,
        opened_notified_at: null,
        created_at: now,
        updated_at: now,
      };
      if (!stored.gaps.has(id)) newGaps.push(row);
      stored.gaps.set(id, stored.gaps.get(id) ?? row);
    }
    for (const key of group.keys) {
      if (stored.keys.has(key)) continue;
      stored.keys.set(key, id);
      newKeys.push({ project_id: projectId, key, gap_id: id });
    }
    return id;
  });
  return { ids, newGaps, newKeys };
}

/** Whether `gapId` is the id a new group with one of these keys would get: an id a read answered before any write stored it. */
export function isGapIdOf(projectId: string, keys: readonly string[], gapId: string): boolean {
  return keys.some((key) => gapIdOf(projectId, key) === gapId);
}

/** Stores the gaps and keys a plan found new. Idempotent and safe in several processes at once (conflicting inserts do nothing). */
export async function storeGaps(db: Kysely<Database>, plan: Pick<GapPlan, 'newGaps' | 'newKeys'>): Promise<void> {
  const { newGaps, newKeys } = plan;
  if (newGaps.length === 0 && newKeys.length === 0) return;
  await db.transaction().execute(async (trx) => {
    for (let start = 0; start < newGaps.length; start += 500)
      await trx
        .insertInto('docs_gaps')
        .values(newGaps.slice(start, start + 500))
        .onConflict((conflict) => conflict.column('id').doNothing())
        .execute();
    for (let start = 0; start < newKeys.length; start += 500)
      await trx
        .insertInto('docs_gap_keys')
        .values(newKeys.slice(start, start + 500))
        .onConflict((conflict) => conflict.columns(['project_id', 'key']).doNothing())
        .execute();
  });
}

/** Changes a stored gap; answers it as it is after, or undefined when the project has no such gap. */
export async function updateGap(db: Kysely<Database>, projectId: string, gapId: string, changes: Partial<DocsGapRow>): Promise<DocsGapRow | undefined> {
  const result = await db
    .updateTable('docs_gaps')
    .set({ ...changes, updated_at: Date.now() })
    .where('project_id', '=', projectId)
    .where('id', '=', gapId)
    .executeTakeFirst();
  if (result.numUpdatedRows === 0n) return undefined;
  const row = await db.selectFrom('docs_gaps').selectAll().where('id', '=', gapId).executeTakeFirstOrThrow();
  return normalizeRow(row);
}
