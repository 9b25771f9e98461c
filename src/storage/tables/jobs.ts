import type { Generated } from 'kysely';

export type JobStatus = 'active' | 'completed' | 'archived' | 'failed';

/** How a job was created: the create operation, the dashboard, an admin MCP session (its agent is the MCP client), or a docs gap. */
export type JobOrigin = 'api' | 'dashboard' | 'mcp' | 'gap';

/** Rows of the job tables (timestamps are epoch milliseconds). */
export interface JobRow {
  id: string;
  org_id: string;
  project_id: string;
  status: JobStatus;
  /** The first prompt, kept for listings; every prompt is in job_messages. */
  prompt: string;
  repository: string;
  ref: string | null;
  model: string;
  /** Branch the agent works on: `quire/<job id>` unless the create request named one. */
  branch: string;
  /** 1 when the pull request is opened as draft (create option `draft`), else 0. */
  draft: number;
  /** 1 when the last finished run left the pull request a draft (asked for, or problems remain), 0 when ready; null before a run published one. */
  pr_draft: number | null;
  /** JSON `JobProblem[]`: what the docs checks still report, at most `maxJobProblems`; null before a run published. */
  problems: string | null;
  /** How many problems the checks reported in all (`problems` keeps the first ones). */
  problem_count: number | null;
  pr_link: string | null;
  error: string | null;
  /** JSON the runner keeps between runs of one job (pull request number, …). */
  runner_state: string | null;
  input_tokens: number;
  output_tokens: number;
  created_at: number;
  updated_at: number;
  archived_at: number | null;
  /** When the job's last run was cancelled (`POST …/cancel`); null when it was not. */
  cancelled_at: number | null;
  /** Who cancelled it (the API key's or person's name), when known. */
  cancelled_by: string | null;
  origin: JobOrigin;
}

/** Roles of the transcript (`GET …/messages`). */
export type MessageRole = 'user' | 'assistant' | 'tool' | 'event';

/**
 * A `status` row holds the job object after a status change (JSON). It shares the per-job sequence with
 * the transcript, so the event stream reads one ordered table, but it is not part of the transcript.
 */
export type StoredRole = MessageRole | 'status';

export interface JobMessageRow {
  job_id: string;
  seq: number;
  role: StoredRole;
  /** JSON. */
  content: string;
  created_at: number;
}

/** One run of a job waiting for, or held by, a worker. */
export interface JobQueueRow {
  id: string;
  job_id: string;
  attempts: Generated<number>;
  max_attempts: number;
  available_at: number;
  locked_by: string | null;
  locked_until: number | null;
  created_at: number;
}

export interface RateLimitBucketRow {
  bucket: string;
}

export interface RateLimitHitRow {
  bucket: string;
  at: number;
}

export interface IdempotencyKeyRow {
  project_id: string;
  /** `create`, or `message:<job id>` for follow-ups. */
  scope: string;
  key: string;
  /** SHA-256 of the request body, to tell a replay from a different request under the same key. */
  request_hash: string;
  job_id: string;
  created_at: number;
}

export interface JobsTables {
  jobs: JobRow;
  job_messages: JobMessageRow;
  job_queue: JobQueueRow;
  rate_limit_buckets: RateLimitBucketRow;
  rate_limit_hits: RateLimitHitRow;
  idempotency_keys: IdempotencyKeyRow;
}
