import { jobBranch } from '../lib/job-branch.ts';
import type { Kysely } from 'kysely';
import type { ProjectRow } from '../storage/tables/accounts.ts';
import { isId, newId } from '../lib/ids.ts';
import type { AppContext } from '../http/context.ts';
import { ApiError, conflict, invalidRequest, notFound } from '../http/errors.ts';
import { rateLimited, takeRateLimit, type RateLimitState } from '../http/rate-limit.ts';
import { jobRateBucket, rememberIdempotencyKey, replayedJob, type IdempotentRequest } from './idempotency.ts';
import type { Database } from '../storage/schema.ts';
import { enqueueRun } from './queue/enqueue.ts';
import type { JobOrigin, JobRow, JobStatus } from '../storage/tables/jobs.ts';
import { checkBranchUnused, checkRefNames, chooseModel } from './create-options.ts';
import { announceRecorded, appendMessage, appendStatus } from './transcript.ts';
import { isSessionModel } from './session-model.ts';
import { sessionHoldsCheckout } from '../workspace/session-lease.ts';
import { jobView } from './view.ts';
import { queueJobEvent } from './webhooks/emit.ts';

/** A create or follow-up request; `origin` (create only) says how the job was created, `api` unless given. */
export type Submission = IdempotentRequest & { origin?: JobOrigin };

export interface SubmissionResult {
  job: JobRow;
  rateLimit: RateLimitState;
}

/** Takes (or, with `consume` false, reads) the project's hourly job limit inside `trx`; 429 when it is used up. */
export async function takeJobRateLimit(context: AppContext, trx: Kysely<Database>, projectId: string, consume: boolean): Promise<RateLimitState> {
  const { config, storage } = context;
  const state = await takeRateLimit(
    trx,
    storage.profile,
    jobRateBucket(projectId),
    { limit: config.jobRateLimit, windowMs: config.jobRateWindowSeconds * 1000 },
    { consume },
  );
  if (!state.allowed && consume) {
    throw rateLimited(state, `This project has used its ${config.jobRateLimit} agent job requests for the last ${config.jobRateWindowSeconds / 60} minutes.`);
  }
  return state;
}

/** A new job's row: active, with no run, pull request, usage or archive yet. */
export function newJobRow(
  id: string,
  project: ProjectRow,
  fields: Pick<JobRow, 'prompt' | 'repository' | 'ref' | 'model' | 'branch' | 'draft' | 'origin'>,
  now: number,
): JobRow {
  return {
    id,
    org_id: project.org_id,
    project_id: project.id,
    status: 'active',
    ...fields,
    pr_draft: null,
    problems: null,
    problem_count: null,
    pr_link: null,
    error: null,
    runner_state: null,
    input_tokens: 0,
    output_tokens: 0,
    created_at: now,
    updated_at: now,
    archived_at: null,
    cancelled_at: null,
    cancelled_by: null,
  };
}

/** The project's repository and the `provider:model` its new jobs run with; 409 `project_not_configured` when it cannot run agent jobs. */
function readyProject(context: AppContext, project: ProjectRow): { repository: string; model: string } {
  const problem = context.agent.checkProject(project);
  const model = context.agent.modelFor(project);
  if (problem || !model || !project.repository) {
    throw new ApiError('project_not_configured', problem ?? `Project ${project.id} is not ready for agent jobs: set its repository and model.`);
  }
  return { repository: project.repository, model };
}

export async function createJob(context: AppContext, project: ProjectRow, submission: Submission): Promise<SubmissionResult & { replayed: boolean }> {
  const { repository, model } = readyProject(context, project);
  const options = submission.options ?? {};
  checkRefNames(options);
  const jobModel = chooseModel(context, model, options.model);
  const result = await context.storage.db.transaction().execute(async (trx) => {
    const now = Date.now();
    const replay = await replayedJob(context, trx, project.id, 'create', submission, now);
    if (replay) return { job: replay, rateLimit: await takeJobRateLimit(context, trx, project.id, false), replayed: true, webhooks: 0 };
    const rateLimit = await takeJobRateLimit(context, trx, project.id, true);
    // Under the project's turn (taken with the rate limit), so two creates cannot both take one branch.
    if (options.branch !== undefined) await checkBranchUnused(trx, project, options.branch);
    const id = newId('job');
    const job = newJobRow(
      id,
      project,
      {
        prompt: submission.prompt,
        repository,
        ref: options.ref ?? project.ref,
        model: jobModel,
        branch: options.branch ?? jobBranch(id),
        draft: options.draft ? 1 : 0,
        origin: submission.origin ?? 'api',
      },
      now,
    );
    await trx.insertInto('jobs').values(job).execute();
    await appendMessage(trx, id, 'user', { text: submission.prompt }, now);
    await appendStatus(trx, job);
    await enqueueRun(context.storage, trx, id, context.config.jobMaxAttempts, now);
    await rememberIdempotencyKey(trx, project.id, 'create', submission, id, now);
    const webhooks = await queueJobEvent(trx, job, 'job.created', now);
    return { job, rateLimit, replayed: false, webhooks };
  });
  if (!result.replayed) {
    context.events.emit('job-enqueued');
    announceRecorded(result.job.id);
  }
  if (result.webhooks) context.events.emit('webhooks-queued');
  return result;
}

export async function findJobRow(db: Kysely<Database>, project: ProjectRow, jobId: string): Promise<JobRow> {
  if (!isId(jobId, 'job')) throw notFound(`Job ${jobId}`);
  const job = await db.selectFrom('jobs').selectAll().where('id', '=', jobId).where('project_id', '=', project.id).executeTakeFirst();
  if (!job) throw notFound(`Job ${jobId}`);
  return job;
}

export function getJob(context: AppContext, project: ProjectRow, jobId: string): Promise<JobRow> {
  return findJobRow(context.storage.db, project, jobId);
}

/**
 * The job as the JSON the API sends. Polling clients read the same job over and over; while the
 * storage's change clock has not moved the answer comes from memory, otherwise from the database.
 */
export async function getJobJson(context: AppContext, project: ProjectRow, jobId: string): Promise<string> {
  // Read the clock before the row: a write in between leaves the entry behind an older mark.
  const mark = context.storage.changeClock?.();
  if (mark !== undefined) {
    const cached = context.jobReads.lookup(jobId, project.id, mark);
    if (cached !== undefined) return cached;
  }
  const body = JSON.stringify(jobView(await getJob(context, project, jobId)));
  if (mark !== undefined) context.jobReads.store(jobId, project.id, mark, body);
  return body;
}

/**
 * A follow-up message: the job becomes `active` again and continues where it stopped. 409 while an admin MCP
 * session on this machine has the job's branch checked out (it stays open after a save, which completes the job):
 * the run would wait for the session's checkout until its time limit. The job of a session stores its MCP client as
 * its model, which Quire's agent cannot run: its follow-up runs with the model a new job of the project gets (409
 * `project_not_configured` as a create when there is none), and the job's `model` says so from then on.
 */
export async function followUp(context: AppContext, project: ProjectRow, jobId: string, submission: Submission): Promise<SubmissionResult> {
  const scope = `message:${jobId}`;
  const result = await context.storage.db.transaction().execute(async (trx) => {
    const now = Date.now();
    const job = await findJobRow(trx, project, jobId);
    const replay = await replayedJob(context, trx, project.id, scope, submission, now);
    if (replay) return { job: replay, rateLimit: await takeJobRateLimit(context, trx, project.id, false), replayed: true };
    if (job.status === 'active') throw conflict('The job is still active; wait until it is completed or failed before sending a follow-up.');
    if (job.status === 'archived') throw conflict('The job is archived and takes no more messages; create a new job instead.');
    if (await sessionHoldsCheckout(context.config.dataDir, job.id, context.config.mcpSessionIdleMinutes)) {
      throw conflict(
        `An admin MCP session has the job's branch ${job.branch} checked out, and stays open after its saves until it is idle for ${context.config.mcpSessionIdleMinutes} minutes (QUIRE_MCP_SESSION_IDLE_MINUTES): continue in that session, or send the follow-up once it has ended.`,
      );
    }
    const model = isSessionModel(job.model) ? readyProject(context, project).model : job.model;
    const rateLimit = await takeJobRateLimit(context, trx, project.id, true);
    const reopened = { ...job, status: 'active' as const, error: null, model, updated_at: now };
    await trx.updateTable('jobs').set({ status: 'active', error: null, model, updated_at: now }).where('id', '=', job.id).execute();
    await appendStatus(trx, reopened);
    await appendMessage(trx, job.id, 'user', { text: submission.prompt }, now);
    await enqueueRun(context.storage, trx, job.id, context.config.jobMaxAttempts, now);
    await rememberIdempotencyKey(trx, project.id, scope, submission, job.id, now);
    return { job: reopened, rateLimit, replayed: false };
  });
  if (!result.replayed) {
    context.events.emit('job-enqueued');
    announceRecorded(jobId);
  }
  return result;
}

/** Archives a completed or failed job (archiving an archived job changes nothing). */
export async function archiveJob(context: AppContext, project: ProjectRow, jobId: string): Promise<JobRow> {
  const { job, webhooks } = await context.storage.db.transaction().execute(async (trx) => {
    const job = await findJobRow(trx, project, jobId);
    if (job.status === 'archived') return { job, webhooks: 0 };
    if (job.status === 'active') throw conflict('The job is still active; wait until it is completed or failed before archiving it.');
    const now = Date.now();
    const row = { ...job, status: 'archived' as const, archived_at: now, updated_at: now };
    await trx.updateTable('jobs').set({ status: 'archived', archived_at: now, updated_at: now }).where('id', '=', job.id).execute();
    await appendMessage(trx, job.id, 'event', { type: 'job-archived' }, now);
    await appendStatus(trx, row);
    return { job: row, webhooks: await queueJobEvent(trx, row, 'job.archived', now) };
  });
  announceRecorded(job.id);
  if (webhooks) context.events.emit('webhooks-queued');
  return job;
}

export interface ListOptions {
  limit: number;
  cursor?: string;
  status?: JobStatus;
}

/** Jobs of a project, newest first. The cursor is the id of the last job of the previous page. */
export async function listJobs(context: AppContext, project: ProjectRow, options: ListOptions): Promise<{ jobs: JobRow[]; nextCursor: string | null }> {
  if (options.cursor !== undefined && !isId(options.cursor, 'job')) {
    throw invalidRequest('cursor must be the nextCursor value of a previous page.', [{ path: '/cursor', message: 'not a cursor' }]);
  }
  const rows = await context.storage.db
    .selectFrom('jobs')
    .selectAll()
    .where('project_id', '=', project.id)
    .$if(options.status !== undefined, (query) => query.where('status', '=', options.status as JobStatus))
    .$if(options.cursor !== undefined, (query) => query.where('id', '<', options.cursor as string))
    .orderBy('id', 'desc')
    .limit(options.limit + 1)
    .execute();
  const jobs = rows.slice(0, options.limit);
  return { jobs, nextCursor: rows.length > options.limit ? jobs[jobs.length - 1].id : null };
}
