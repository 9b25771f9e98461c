import type { Storage } from '../../storage/dialect.ts';
import type { AnalyticsFeedbackRow } from '../../storage/tables/feedback.ts';
import { applyFeedbackDeltas, deltaOf } from './feedback-store.ts';

/**
 * Sets an item's status and moves it between the per-day counts of its old and new status, in one
 * transaction (the row is locked on PostgreSQL, so two changes at once cannot both move it).
 * Undefined when the project has no such item.
 */
export async function changeStatus(storage: Storage, projectKey: number, id: string, status: number): Promise<AnalyticsFeedbackRow | undefined> {
  return storage.db.transaction().execute(async (trx) => {
    let select = trx.selectFrom('analytics_feedback').selectAll().where('project_key', '=', projectKey).where('id', '=', id);
    if (storage.profile.rowLocks) select = select.forUpdate();
    const row = await select.executeTakeFirst();
    if (!row || row.status === status) return row;
    await trx.updateTable('analytics_feedback').set({ status }).where('id', '=', id).execute();
    const item = { ...row, at: Number(row.at) };
    await applyFeedbackDeltas(trx, projectKey, [deltaOf(item, -1), deltaOf({ ...item, status }, 1)]);
    return { ...row, status };
  });
}
