import type { Logger } from 'pino';
import type { AppContext } from '../../http/context.ts';
import { queueProjectEvent } from '../../jobs/webhooks/emit.ts';
import type { CommitTree } from '../../workspace/commit-tree.ts';
import { computeGaps, freeze, gapView } from './list.ts';

/** How far back the evidence frozen at a fix reaches. */
const frozenDays = 90;
const dayMs = 86_400_000;

type ClosureContext = Pick<AppContext, 'storage' | 'analytics' | 'events'> & { logger: Logger };

/**
 * After an index build of the project's ref: every gap in progress whose job's change the built commit
 * contains (the job branch's head is the commit or an ancestor of it, as a merge or a fast-forward
 * leaves it, or the commit carries the job's change to every file it touched, as a squash or rebase
 * merge leaves it) becomes `fixed`, with `fixedAt` and its evidence frozen, and `gap.fixed` is queued in the
 * same transaction. The job branch's head is remembered the first time a build sees it, so a branch
 * deleted after its merge still counts. Returns the ids of the gaps it fixed.
 */
export async function closeGaps(
  context: ClosureContext,
  projectId: string,
  snapshot: Pick<CommitTree, 'commit' | 'commitOf' | 'contains' | 'carries'>,
): Promise<string[]> {
  const { db } = context.storage;
  const candidates = await db
    .selectFrom('docs_gaps')
    .innerJoin('jobs', 'jobs.id', 'docs_gaps.job_id')
    .select(['docs_gaps.id', 'docs_gaps.job_commit', 'jobs.branch', 'jobs.pr_link'])
    .where('docs_gaps.project_id', '=', projectId)
    .where('docs_gaps.status', '=', 'in_progress')
    .execute();
  const fixed: string[] = [];
  for (const candidate of candidates) {
    // A job that pushed nothing has no pull request; its branch, if any, is the base itself.
    if (candidate.pr_link === null) continue;
    const commit = candidate.job_commit ?? (await snapshot.commitOf(candidate.branch));
    if (commit === null) continue;
    if (candidate.job_commit === null) await db.updateTable('docs_gaps').set({ job_commit: commit }).where('id', '=', candidate.id).execute();
    if (!(await snapshot.contains(commit)) && !(await snapshot.carries(commit))) continue;
    const now = Date.now();
    const gaps = await computeGaps(context, projectId, { from: now - frozenDays * dayMs, to: now }, { write: true });
    const gap = gaps.find((computed) => computed.row.id === candidate.id);
    const frozen = freeze(gap?.group ?? null);
    const queued = await db.transaction().execute(async (trx) => {
      const changed = await trx
        .updateTable('docs_gaps')
        .set({ status: 'fixed', fixed_at: now, fixed_evidence: frozen, updated_at: now })
        .where('id', '=', candidate.id)
        .where('status', '=', 'in_progress')
        .executeTakeFirst();
      if (changed.numUpdatedRows === 0n) return 0;
      const row = await trx.selectFrom('docs_gaps').selectAll().where('id', '=', candidate.id).executeTakeFirstOrThrow();
      const view = gapView({ row: { ...row, fixed_at: Number(row.fixed_at) }, group: JSON.parse(frozen) }, candidate.pr_link, null);
      return 1 + (await queueProjectEvent(trx, projectId, 'gap.fixed', { gap: view }, now));
    });
    if (queued === 0) continue;
    fixed.push(candidate.id);
    context.logger.info({ projectId, gapId: candidate.id, commit: snapshot.commit }, 'docs gap fixed');
    if (queued > 1) context.events.emit('webhooks-queued');
  }
  return fixed;
}
