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
  return `gap_${createHash('sha256').update(`${projectId}\n${key}`).digest('hex').slice(0, 24)}`;
}

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

/**
 * Gives each group its stored gap: the gap already seen under one of its keys (the oldest id when a
 * group joined several), else a new open gap; keys not seen before are recorded for it. Idempotent
 * and safe to run in several processes at once (conflicting inserts do nothing).
 */
export async function assignGaps(
  db: Kysely<Database>,
  projectId: string,
  groups: readonly GapGroup[],
  stored: { gaps: Map<string, DocsGapRow>; keys: Map<string, string> },
  now = Date.now(),
): Promise<string[]> {
  const newGaps: DocsGapRow[] = [];
  const newKeys: { project_id: string; key: string; gap_id: string }[] = [];
  const ids = groups.map((group) => {
    const known = group.keys.map((key) => stored.keys.get(key)).filter((id) => id !== undefined && stored.gaps.has(id));
    const oldest = known.map((id) => stored.gaps.get(id!)!).sort((a, b) => a.created_at - b.created_at || (a.id < b.id ? -1 : 1))[0];
    let id = oldest?.id;
    if (id === undefined) {
      id = gapIdOf(projectId, group.keys[0]!);
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
  if (newGaps.length > 0 || newKeys.length > 0) {
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
  return ids;
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
