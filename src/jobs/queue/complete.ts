import type { Kysely } from 'kysely';
import type { Database } from '../../storage/schema.ts';
import { maxJobProblemMessage, maxJobProblems, type RunOutcome } from '../runner.ts';
import type { TokenUsage } from '../token-usage.ts';
import { appendMessage, appendStatus } from '../transcript.ts';
import { queueJobEvent } from '../webhooks/emit.ts';

export type RunResult =
  | { status: 'completed'; prLink: string | null; state?: unknown; usage?: TokenUsage; pullRequest?: RunOutcome['pullRequest'] }
  | { status: 'failed'; error: string; usage?: TokenUsage };

/** The job columns of what a run left on its pull request: the first problems (messages cut short) and how many in all. */
function pullRequestColumns(pullRequest: RunOutcome['pullRequest']) {
  if (pullRequest === undefined) return {};
  const kept = pullRequest.problems.slice(0, maxJobProblems).map(({ file, line, message }) => ({
    file,
    line,
    message: message.length > maxJobProblemMessage ? `${message.slice(0, maxJobProblemMessage - 1)}…` : message,
  }));
  return { pr_draft: pullRequest.draft ? 1 : 0, problems: JSON.stringify(kept), problem_count: pullRequest.problems.length };
}

/**
 * Records the outcome of a run and removes it from the queue, in one transaction with the webhook
 * deliveries it causes (`job.completed` or `job.failed`, and `pull_request.opened` when the job's
 * first pull request link is set). Does nothing and returns false when the worker lost the run's
 * lease (another worker owns the job now, or the job was cancelled). The caller announces the
 * recorded rows (`announceRecorded`).
 */
export async function completeRun(db: Kysely<Database>, runId: string, workerId: string, jobId: string, result: RunResult, now = Date.now()): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const removed = await trx.deleteFrom('job_queue').where('id', '=', runId).where('locked_by', '=', workerId).executeTakeFirst();
    if (removed.numDeletedRows === 0n) return false;
    const usage = result.usage ?? { inputTokens: 0, outputTokens: 0 };
    const before = await trx.selectFrom('jobs').select(['status', 'pr_link']).where('id', '=', jobId).executeTakeFirst();
    await trx
      .updateTable('jobs')
      .set((eb) => ({
        status: result.status,
        pr_link: result.status === 'completed' ? result.prLink : eb.ref('pr_link'),
        error: result.status === 'failed' ? result.error : null,
        ...(result.status === 'completed' && result.state !== undefined ? { runner_state: JSON.stringify(result.state) } : {}),
        ...(result.status === 'completed' ? pullRequestColumns(result.pullRequest) : {}),
        input_tokens: eb('input_tokens', '+', usage.inputTokens),
        output_tokens: eb('output_tokens', '+', usage.outputTokens),
        updated_at: now,
      }))
      .where('id', '=', jobId)
      .where('status', '=', 'active')
      .execute();
    const event = result.status === 'completed' ? { type: 'job-completed', prLink: result.prLink } : { type: 'job-failed', error: result.error };
    await appendMessage(trx, jobId, 'event', event, now);
    const job = await trx.selectFrom('jobs').selectAll().where('id', '=', jobId).executeTakeFirstOrThrow();
    await appendStatus(trx, job);
    // A job that is no longer active (cancelled meanwhile) changed nothing here, so nothing is announced.
    if (before?.status === 'active') {
      await queueJobEvent(trx, job, result.status === 'completed' ? 'job.completed' : 'job.failed', now);
      if (result.status === 'completed' && result.prLink !== null && before.pr_link === null) await queueJobEvent(trx, job, 'pull_request.opened', now);
    }
    return true;
  });
}
