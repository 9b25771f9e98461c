import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.ts';
import type { MessageRole } from '../storage/tables/jobs.ts';
import { messageView } from './view.ts';
import type { TranscriptMessage } from './runner.ts';

/** Appends one entry to a job's transcript. Only one writer per job at a time (its run or the API). */
export async function appendMessage(db: Kysely<Database>, jobId: string, role: MessageRole, content: Record<string, unknown>, now = Date.now()): Promise<void> {
  const last = await db
    .selectFrom('job_messages')
    .select((eb) => eb.fn.max('seq').as('seq'))
    .where('job_id', '=', jobId)
    .executeTakeFirst();
  const seq = last?.seq === null || last?.seq === undefined ? 0 : Number(last.seq) + 1;
  await db
    .insertInto('job_messages')
    .values({ job_id: jobId, seq, role, content: JSON.stringify(content), created_at: now })
    .execute();
}

export async function listMessages(db: Kysely<Database>, jobId: string): Promise<TranscriptMessage[]> {
  const rows = await db.selectFrom('job_messages').selectAll().where('job_id', '=', jobId).orderBy('seq').execute();
  return rows.map(messageView);
}
