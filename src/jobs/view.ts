import type { JobMessageRow, JobRow } from '../storage/tables/jobs.ts';
import type { TranscriptMessage } from './runner.ts';

const iso = (value: number | null) => (value === null ? null : new Date(value).toISOString());

/** The job object of the API: every field always present. */
export function jobView(row: JobRow) {
  return {
    id: row.id,
    status: row.status,
    source: { repository: row.repository, ref: row.ref },
    // Jobs store `provider:model`; the API shows the model id, as providers name it.
    model: row.model.slice(row.model.indexOf(':') + 1),
    prLink: row.status === 'active' ? null : row.pr_link,
    createdAt: new Date(row.created_at).toISOString(),
    archivedAt: iso(row.archived_at),
    updatedAt: new Date(row.updated_at).toISOString(),
    error: row.error,
  };
}

export type JobView = ReturnType<typeof jobView>;

export function messageView(row: JobMessageRow): TranscriptMessage {
  return { seq: row.seq, role: row.role, content: JSON.parse(row.content) as Record<string, unknown>, createdAt: new Date(row.created_at).toISOString() };
}
