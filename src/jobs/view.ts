import type { JobMessageRow, JobRow } from '../storage/tables/jobs.ts';
import { displayRepository } from '../lib/display-repository.ts';
import type { JobProblem, TranscriptMessage } from './runner.ts';

const iso = (value: number | null) => (value === null ? null : new Date(value).toISOString());

/**
 * Whether `link` is an absolute http(s) URL: the only pull-request links Quire stores or shows. A
 * code host's answer is not trusted to be one (`javascript:` would run in the dashboard).
 */
export function isWebLink(link: string | null): link is string {
  const url = link === null ? null : URL.parse(link);
  return url?.protocol === 'https:' || url?.protocol === 'http:';
}

/** The job object of the API: every field always present. */
export function jobView(row: JobRow) {
  return {
    id: row.id,
    status: row.status,
    // Without credentials, which projects saved before they were refused may hold.
    source: { repository: displayRepository(row.repository), ref: row.ref },
    // Jobs store `provider:model`; the API shows the model id, as providers name it.
    model: row.model.slice(row.model.indexOf(':') + 1),
    // Rows stored before links were checked may hold another scheme: shown as no link.
    prLink: row.status !== 'active' && isWebLink(row.pr_link) ? row.pr_link : null,
    createdAt: new Date(row.created_at).toISOString(),
    archivedAt: iso(row.archived_at),
    updatedAt: new Date(row.updated_at).toISOString(),
    error: row.error,
    origin: row.origin,
    // Before a run published a pull request, whether it will be opened as a draft (asked for at creation).
    draft: row.pr_draft === null ? row.draft === 1 : row.pr_draft === 1,
    problems: row.problems === null ? [] : (JSON.parse(row.problems) as JobProblem[]),
  };
}

/** A transcript entry as `GET …/messages` returns it (for rows other than `status` rows). */
export function messageView(row: JobMessageRow): TranscriptMessage {
  return {
    seq: row.seq,
    role: row.role as TranscriptMessage['role'],
    content: JSON.parse(row.content) as Record<string, unknown>,
    createdAt: new Date(row.created_at).toISOString(),
  };
}
