import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { AppContext } from '../http/context.ts';
import { conflict } from '../http/errors.ts';
import { lockRateLimitBucket } from '../http/rate-limit.ts';
import type { Database } from '../storage/schema.ts';
import type { JobRow } from '../storage/tables/jobs.ts';
import type { CreateOptions } from './create-options.ts';

/** How long an `Idempotency-Key` keeps returning the job it created. */
const idempotencyWindowMs = 24 * 60 * 60 * 1000;

export interface IdempotentRequest {
  prompt: string;
  idempotencyKey?: string;
  /** The create options; part of the request a key stands for. */
  options?: CreateOptions;
}

/** Creates and follow-ups of a project take turns under this lock (it is also their rate-limit bucket). */
export function jobRateBucket(projectId: string): string {
  return `jobs:${projectId}`;
}

/** The prompt alone (as before create options existed, so stored keys still match), or the prompt and its options. */
function requestHash(submission: IdempotentRequest): string {
  const options = Object.entries(submission.options ?? {})
    .filter(([, value]) => value !== undefined)
    .sort(([a], [b]) => a.localeCompare(b));
  const text = options.length === 0 ? submission.prompt : JSON.stringify([submission.prompt, options]);
  return createHash('sha256').update(text).digest('hex');
}

/**
 * Looks up an earlier request under the same idempotency key. Returns its job when the request is a
 * replay, undefined when the key is new, and throws 409 when the key was used for another request.
 */
export async function replayedJob(
  context: AppContext,
  trx: Kysely<Database>,
  projectId: string,
  scope: string,
  submission: IdempotentRequest,
  now: number,
): Promise<JobRow | undefined> {
  if (!submission.idempotencyKey) return undefined;
  // Concurrent requests with one key must see each other's rows: take the project's turn first.
  await lockRateLimitBucket(trx, context.storage.profile, jobRateBucket(projectId));
  const earlier = await trx
    .selectFrom('idempotency_keys')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('scope', '=', scope)
    .where('key', '=', submission.idempotencyKey)
    .executeTakeFirst();
  if (!earlier) return undefined;
  if (earlier.created_at <= now - idempotencyWindowMs) {
    await trx
      .deleteFrom('idempotency_keys')
      .where('project_id', '=', projectId)
      .where('scope', '=', scope)
      .where('key', '=', submission.idempotencyKey)
      .execute();
    return undefined;
  }
  if (earlier.request_hash !== requestHash(submission)) {
    throw conflict('This Idempotency-Key was already used with a different request body; use a new key for a new request.');
  }
  return trx.selectFrom('jobs').selectAll().where('id', '=', earlier.job_id).executeTakeFirstOrThrow();
}

export async function rememberIdempotencyKey(
  trx: Kysely<Database>,
  projectId: string,
  scope: string,
  submission: IdempotentRequest,
  jobId: string,
  now: number,
) {
  if (!submission.idempotencyKey) return;
  await trx
    .insertInto('idempotency_keys')
    .values({ project_id: projectId, scope, key: submission.idempotencyKey, request_hash: requestHash(submission), job_id: jobId, created_at: now })
    .execute();
}
