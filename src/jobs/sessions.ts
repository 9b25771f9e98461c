import type { Kysely } from 'kysely';
import type { AppContext } from '../http/context.ts';
import { ApiError, conflict, notFound } from '../http/errors.ts';
import { newId } from '../lib/ids.ts';
import { jobBranch } from '../lib/job-branch.ts';
import type { Database } from '../storage/schema.ts';
import type { ProjectRow } from '../storage/tables/accounts.ts';
import type { JobRow, MessageRole } from '../storage/tables/jobs.ts';
import { checkRefNames } from './create-options.ts';
import { pullRequestColumns } from './queue/complete.ts';
import type { JobProblem } from './runner.ts';
import { newJobRow, takeJobRateLimit } from './service.ts';
import { sessionModel } from './session-model.ts';
import { announceRecorded, appendMessage, appendStatus } from './transcript.ts';
import { queueJobEvent } from './webhooks/emit.ts';
import { sessionHoldsCheckout } from '../workspace/session-lease.ts';

/**
 * The job of an admin MCP session (`origin: "mcp"`): its agent is the MCP client, so no run is queued
 * for a worker; the session records the transcript and completes the job when it saves. Opening and
 * reopening count towards the project's hourly job limit like a create or a follow-up, and every
 * transition fires the same webhooks as a job's.
 */

/** A new session job on a new branch `quire/<job id>` from `ref` (default the project's). */
export async function openSessionJob(context: AppContext, project: ProjectRow, options: { ref?: string; clientName: string; opener: string }): Promise<JobRow> {
  if (!project.repository) {
    throw new ApiError(
      'project_not_configured',
      `Project ${project.id} has no repository; set one with "quire projects update ${project.id} --repository URL".`,
    );
  }
  if (options.ref !== undefined) checkRefNames({ ref: options.ref });
  const repository = project.repository;
  const prompt = `Session of ${options.clientName} through the admin MCP server, opened with the key ${options.opener}.`;
  const { job, webhooks } = await context.storage.db.transaction().execute(async (trx) => {
    await takeJobRateLimit(context, trx, project.id, true);
    const now = Date.now();
    const id = newId('job');
    const job = newJobRow(
      id,
      project,
      { prompt, repository, ref: options.ref ?? project.ref, model: sessionModel(options.clientName), branch: jobBranch(id), draft: 0, origin: 'mcp' },
      now,
    );
    await trx.insertInto('jobs').values(job).execute();
    await appendMessage(trx, id, 'user', { text: prompt }, now);
    await appendStatus(trx, job);
    return { job, webhooks: await queueJobEvent(trx, job, 'job.created', now) };
  });
  announce(context, job.id, webhooks);
  return job;
}

/**
 * Reopens the job that works on `branch`, like a follow-up: it becomes `active` again on the same
 * branch and pull request. 404 when no job of the project has the branch, 409 when the job is active
 * (Quire's agent or another session works on it), archived, or open in a session of another process.
 */
export async function reopenSessionJob(context: AppContext, project: ProjectRow, branch: string, clientName: string): Promise<JobRow> {
  const { job, webhooks } = await context.storage.db.transaction().execute(async (trx) => {
    const job = await trx.selectFrom('jobs').selectAll().where('project_id', '=', project.id).where('branch', '=', branch).executeTakeFirst();
    if (!job) throw notFound(`A job of project ${project.id} on branch ${branch}`);
    if (job.status === 'active')
      throw conflict(`Job ${job.id} on branch ${branch} is active: Quire's agent or another session works on it. Wait until it is completed, or cancel it.`);
    if (job.status === 'archived') throw conflict(`Job ${job.id} on branch ${branch} is archived; call checkout without a branch to start a new one.`);
    // A session of this process was handed the branch or refused it before (see session-tools.ts); one of another
    // process on the machine keeps its checkout, which this checkout would wait for until that session ends.
    if (await sessionHoldsCheckout(context.config.dataDir, job.id, context.config.mcpSessionIdleMinutes)) {
      throw conflict(
        `Branch ${branch} is open in an admin MCP session of another Quire process on this machine, which stays open until it is idle for ${context.config.mcpSessionIdleMinutes} minutes (QUIRE_MCP_SESSION_IDLE_MINUTES): continue in that session, or call checkout again once it has ended.`,
      );
    }
    await takeJobRateLimit(context, trx, project.id, true);
    const now = Date.now();
    const reopened: JobRow = { ...job, status: 'active', error: null, updated_at: now };
    await trx.updateTable('jobs').set({ status: 'active', error: null, updated_at: now }).where('id', '=', job.id).execute();
    await appendMessage(trx, job.id, 'user', { text: `Session of ${clientName} through the admin MCP server continues branch ${branch}.` }, now);
    await appendStatus(trx, reopened);
    return { job: reopened, webhooks: 0 };
  });
  announce(context, job.id, webhooks);
  return job;
}

/** Appends a transcript entry of a session (a tool call with its redacted result, a check, a pushed change). */
export async function recordSessionEntry(db: Kysely<Database>, jobId: string, role: MessageRole, content: Record<string, unknown>): Promise<void> {
  await appendMessage(db, jobId, role, content);
}

/** Appends several transcript entries of a session in order, in one transaction (one commit for a batch of tool calls). */
export async function recordSessionEntries(
  db: Kysely<Database>,
  jobId: string,
  entries: readonly { role: MessageRole; content: Record<string, unknown>; at: number }[],
): Promise<void> {
  if (entries.length === 0) return;
  await db.transaction().execute(async (trx) => {
    for (const entry of entries) await appendMessage(trx, jobId, entry.role, entry.content, entry.at);
  });
  announceRecorded(jobId);
}

/** The session's job as it is now, or undefined when it no longer exists. */
export function sessionJob(db: Kysely<Database>, jobId: string): Promise<JobRow | undefined> {
  return db.selectFrom('jobs').selectAll().where('id', '=', jobId).executeTakeFirst();
}

/**
 * Records a save: the job is `completed` with its pull request (a later save of the session updates
 * it). `job.completed` fires when the job was active, `pull_request.opened` when its first link is
 * set. 409 when the job was cancelled or archived meanwhile.
 */
export async function completeSessionJob(
  context: AppContext,
  jobId: string,
  outcome: { prLink: string | null; state: unknown; pullRequest: { draft: boolean; problems: JobProblem[] } },
): Promise<JobRow> {
  const { job, webhooks } = await context.storage.db.transaction().execute(async (trx) => {
    const before = await trx.selectFrom('jobs').selectAll().where('id', '=', jobId).executeTakeFirstOrThrow();
    if (before.status !== 'active' && before.status !== 'completed') {
      throw conflict(`Job ${jobId} is ${before.status}: the session ended. Call checkout with the branch ${before.branch} to continue it.`);
    }
    const now = Date.now();
    const columns = pullRequestColumns(outcome.pullRequest);
    const changes = {
      status: 'completed' as const,
      pr_link: outcome.prLink,
      runner_state: JSON.stringify(outcome.state),
      error: null,
      updated_at: now,
      ...columns,
    };
    const job: JobRow = { ...before, ...changes };
    await trx.updateTable('jobs').set(changes).where('id', '=', jobId).execute();
    await appendMessage(trx, jobId, 'event', { type: 'job-completed', prLink: outcome.prLink }, now);
    await appendStatus(trx, job);
    let webhooks = 0;
    if (before.status === 'active') webhooks += await queueJobEvent(trx, job, 'job.completed', now);
    if (outcome.prLink !== null && before.pr_link === null) webhooks += await queueJobEvent(trx, job, 'pull_request.opened', now);
    return { job, webhooks };
  });
  announce(context, jobId, webhooks);
  return job;
}

/**
 * Ends a session: an active job becomes `failed` with an `error` that says what happened and how to
 * continue when the session held edits it did not save or could not start (`failed`), else
 * `completed` with what its last save left; a job that is no longer active keeps its state, with an
 * event in the transcript.
 */
export async function endSessionJob(context: AppContext, jobId: string, end: { reason: string; unsaved: boolean; failed?: boolean }): Promise<void> {
  const webhooks = await context.storage.db.transaction().execute(async (trx) => {
    const job = await trx.selectFrom('jobs').selectAll().where('id', '=', jobId).executeTakeFirst();
    if (!job) return 0;
    const now = Date.now();
    await appendMessage(trx, jobId, 'event', { type: 'session-ended', reason: end.reason, unsaved: end.unsaved }, now);
    if (job.status !== 'active') return 0;
    const failed = end.unsaved || end.failed === true;
    const lost = end.unsaved ? ' Edits not saved were discarded;' : '';
    const error = `${end.reason}${lost} call checkout with the branch ${job.branch} to continue.`;
    const row: JobRow = failed ? { ...job, status: 'failed', error, updated_at: now } : { ...job, status: 'completed', error: null, updated_at: now };
    await trx
      .updateTable('jobs')
      .set({ status: row.status, error: row.error, updated_at: now })
      .where('id', '=', jobId)
      .where('status', '=', 'active')
      .execute();
    await appendMessage(trx, jobId, 'event', failed ? { type: 'job-failed', error: row.error } : { type: 'job-completed', prLink: row.pr_link }, now);
    await appendStatus(trx, row);
    return queueJobEvent(trx, row, failed ? 'job.failed' : 'job.completed', now);
  });
  announce(context, jobId, webhooks);
}

function announce(context: AppContext, jobId: string, webhooks: number): void {
  announceRecorded(jobId);
  if (webhooks) context.events.emit('webhooks-queued');
}
