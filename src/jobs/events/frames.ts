import type { Kysely } from 'kysely';
import type { Database } from '../../storage/schema.ts';
import type { JobMessageRow, JobStatus } from '../../storage/tables/jobs.ts';
import { messageView } from '../view.ts';

/** One server-sent event of a job's stream, serialized once for every subscriber. */
export interface Frame {
  seq: number;
  text: string;
  /** The job's status, for `status` events. */
  status?: JobStatus;
}

/**
 * The SSE message of one row: `id` is the row's place in the job's sequence; `event` is `status` (data:
 * the job object, stored as the API showed it then) or `message` (data: the transcript entry exactly as
 * `GET …/messages` returns it). JSON holds no raw line breaks, so `data` is one line.
 */
export function frameOf(row: JobMessageRow): Frame {
  if (row.role === 'status') {
    const job = JSON.parse(row.content) as { status: JobStatus };
    return { seq: row.seq, text: `id: ${row.seq}\nevent: status\ndata: ${row.content}\n\n`, status: job.status };
  }
  return { seq: row.seq, text: `id: ${row.seq}\nevent: message\ndata: ${JSON.stringify(messageView(row))}\n\n` };
}

/** The job's rows after sequence number `after`, oldest first, at most `limit`. */
export async function readFrames(db: Kysely<Database>, jobId: string, after: number, limit: number): Promise<Frame[]> {
  const rows = await db.selectFrom('job_messages').selectAll().where('job_id', '=', jobId).where('seq', '>', after).orderBy('seq').limit(limit).execute();
  return rows.map(frameOf);
}
