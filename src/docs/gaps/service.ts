import type { AppContext } from '../../http/context.ts';
import { conflict, notFound } from '../../http/errors.ts';
import { createJob } from '../../jobs/service.ts';
import { isWebLink } from '../../jobs/view.ts';
import { queueProjectEvent } from '../../jobs/webhooks/emit.ts';
import type { ProjectRow } from '../../storage/tables/accounts.ts';
import { afterFix, computeGaps, findGap, gapView, rankGaps, visitorsOf, type ComputedGap, type GapView } from './list.ts';
import { keepEvidence } from './evidence.ts';
import { gapPrompt } from './prompt.ts';
import { updateGap, type GapStatus } from './store.ts';

export interface GapsQuery {
  range: { from: number; to: number };
  /** Statuses to answer; without any, every gap but dismissed ones. */
  statuses: GapStatus[] | null;
  limit: number;
  offset: number;
}

const state = (context: AppContext) => ({ storage: context.storage, analytics: context.analytics });

/** The pull request links of the gaps' jobs, as the job object shows them (`jobView`): http(s) links of jobs that ended. */
async function prLinks(context: AppContext, gaps: ComputedGap[]): Promise<Map<string, string | null>> {
  const jobIds = gaps.map((gap) => gap.row.job_id).filter((id) => id !== null);
  if (jobIds.length === 0) return new Map();
  const rows = await context.storage.db.selectFrom('jobs').select(['id', 'pr_link', 'status']).where('id', 'in', jobIds).execute();
  return new Map(rows.map((row) => [row.id, row.status !== 'active' && isWebLink(row.pr_link) ? row.pr_link : null]));
}

/**
 * The write side of the gaps: stores the gaps and keys of the evidence of the last `days` days (new
 * gaps keep the ids reads answered), saves gaps reopened by their evidence, and sends `gap.opened` for
 * those that crossed the threshold, after keeping the days of evidence lists read (evidence.ts,
 * `keepEvidence`). The "docs gaps" background loop runs it; reads never write.
 */
export async function refreshGaps(context: AppContext, project: ProjectRow, now = Date.now(), days = 7): Promise<void> {
  await keepEvidence(context.analytics, project.id, now);
  const computed = await computeGaps(state(context), project.id, { from: now - days * 86_400_000, to: now }, { write: true });
  await announceOpened(context, project, computed);
}

/**
 * Sends `gap.opened` once for each open gap whose visitors reached the threshold
 * (`QUIRE_GAP_OPENED_VISITORS`). The update claims the gap first, so two processes never both send it.
 */
async function announceOpened(context: AppContext, project: ProjectRow, gaps: ComputedGap[]): Promise<void> {
  const threshold = context.config.gapOpenedVisitors;
  const crossing = gaps.filter((gap) => gap.row.status === 'open' && gap.row.opened_notified_at === null && visitorsOf(gap) >= threshold);
  let queued = 0;
  for (const gap of crossing) {
    const now = Date.now();
    queued += await context.storage.db.transaction().execute(async (trx) => {
      const claimed = await trx
        .updateTable('docs_gaps')
        .set({ opened_notified_at: now })
        .where('id', '=', gap.row.id)
        .where('opened_notified_at', 'is', null)
        .executeTakeFirst();
      if (claimed.numUpdatedRows === 0n) return 0;
      gap.row.opened_notified_at = now;
      return queueProjectEvent(trx, project.id, 'gap.opened', { gap: gapView(gap, null, null) }, now);
    });
  }
  if (queued > 0) context.events.emit('webhooks-queued');
}

/** A page of the project's gaps, ranked by visitors affected, then id; `hasMore` when more follow. */
export async function listGaps(context: AppContext, project: ProjectRow, query: GapsQuery): Promise<{ gaps: GapView[]; hasMore: boolean }> {
  const computed = await computeGaps(state(context), project.id, query.range);
  const wanted = (status: string) => (query.statuses ? query.statuses.includes(status as GapStatus) : status !== 'dismissed');
  const ranked = rankGaps(computed.filter((gap) => wanted(gap.row.status)));
  const page = ranked.slice(query.offset, query.offset + query.limit);
  const links = await prLinks(context, page);
  const gaps = await Promise.all(
    page.map(async (gap) => gapView(gap, gap.row.job_id ? (links.get(gap.row.job_id) ?? null) : null, await afterFix(state(context), gap.row))),
  );
  return { gaps, hasMore: ranked.length > query.offset + query.limit };
}

/** One gap as the list shows it over the range, or 404. */
export async function getGap(context: AppContext, project: ProjectRow, gapId: string, range: { from: number; to: number }): Promise<GapView> {
  const computed = await computeGaps(state(context), project.id, range);
  const gap = findGap(computed, project.id, gapId);
  if (gap) {
    const links = await prLinks(context, [gap]);
    return gapView(gap, gap.row.job_id ? (links.get(gap.row.job_id) ?? null) : null, await afterFix(state(context), gap.row));
  }
  const row = await context.storage.db.selectFrom('docs_gaps').selectAll().where('project_id', '=', project.id).where('id', '=', gapId).executeTakeFirst();
  if (!row) throw notFound(`Gap ${gapId}`);
  return gapView({ row, group: null }, null, null);
}

/**
 * Creates the agent job that should close a gap: its prompt carries the gap's evidence over the range.
 * The gap becomes `in_progress`. A fixed gap is 409: its evidence is frozen and its fix in.
 */
export async function createGapJob(context: AppContext, project: ProjectRow, gapId: string, range: { from: number; to: number }) {
  const computed = await computeGaps(state(context), project.id, range, { write: true, claim: gapId });
  const gap = findGap(computed, project.id, gapId);
  const row =
    gap?.row ?? (await context.storage.db.selectFrom('docs_gaps').selectAll().where('project_id', '=', project.id).where('id', '=', gapId).executeTakeFirst());
  if (!row) throw notFound(`Gap ${gapId}`);
  if (row.status === 'fixed') throw conflict(`Gap ${gapId} is already fixed; its evidence is frozen and its "after" figures show whether the fix worked.`);
  if (!gap?.group) throw conflict(`Gap ${gapId} has no evidence in this range; widen dateFrom and dateTo so the job's prompt can quote what readers asked.`);
  const { job } = await createJob(context, project, { prompt: gapPrompt(gap.group), origin: 'gap' });
  await updateGap(context.storage.db, project.id, row.id, { status: 'in_progress', job_id: job.id, job_commit: null });
  return job;
}

/** Dismisses a gap (it returns once its evidence doubles) or opens it again. */
export async function changeGapStatus(
  context: AppContext,
  project: ProjectRow,
  gapId: string,
  status: 'open' | 'dismissed',
  range: { from: number; to: number },
) {
  const computed = await computeGaps(state(context), project.id, range, { write: true, claim: gapId });
  const gap = findGap(computed, project.id, gapId);
  const evidence = gap?.group?.evidence;
  const count = evidence ? evidence.unanswered + evidence.searches + evidence.feedback + evidence.notFound : 0;
  const changes = status === 'dismissed' ? { status, dismissed_evidence: Math.max(count, 1) } : { status, dismissed_evidence: null };
  const row = await updateGap(context.storage.db, project.id, gap?.row.id ?? gapId, changes);
  if (!row) throw notFound(`Gap ${gapId}`);
  return getGap(context, project, row.id, range);
}
