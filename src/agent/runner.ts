import type { RepositoryAccess } from '../code-hosts/access.ts';
import type { CodeHost, PullRequest } from '../code-hosts/types.ts';
import { CodeHostError } from '../code-hosts/types.ts';
import type { TokenUsage } from '../jobs/token-usage.ts';
import { JobFailure, type AgentRunner, type JobRun, type RunOutcome } from '../jobs/runner.ts';
import { jobBranch } from '../lib/job-branch.ts';
import { LlmLoopError } from '../llm/loop-error.ts';
import type { JobRow } from '../storage/tables/jobs.ts';
import type { Config } from '../config/config.ts';
import { sessionHoldsCheckout } from '../workspace/session-lease.ts';
import { CheckoutHeldError, WorkspaceGitError, WorkspacePathError, type ChangeDiff, type Workspace, type WorkspaceOptions } from '../workspace/types.ts';
import { appendFollowUp, commitMessage, describeChange, type ChangeDescription } from './change-description.ts';
import { checksSection } from './checks/report.ts';
import { conversationFrom } from './conversation.ts';
import { workAndCheck, type CheckedWork } from './repair.ts';
import { checkModel, languageModel } from '../llm/models.ts';
import { systemPrompt } from './prompt.ts';
import { createRedactor, type Redactor } from './redact.ts';
import { agentTools } from './tools/index.ts';

/** How the runner reaches git and the code host; tests and the benchmark pass their own. */
export interface RunnerDependencies {
  openWorkspace(options: WorkspaceOptions): Promise<Workspace>;
  /** Checks that the job's organization may work on its repository and returns the host with the organization's credentials. */
  accessFor(job: JobRow): Promise<RepositoryAccess>;
}

/** What a job keeps between its runs, so a follow-up updates the same pull request. */
export interface RunnerState {
  pullRequest: PullRequest & ChangeDescription;
}

/**
 * Runs one job: opens the workspace on the job branch, lets the model work with the tools, and
 * when files changed commits, pushes and opens (or updates) the pull request. The workspace is
 * removed afterwards, whatever happened.
 */
export function createRunner(config: Config, dependencies: RunnerDependencies): AgentRunner {
  return {
    async run(run) {
      let redact = createRedactor(config);
      const deadline = Date.now() + config.agentMaxSeconds * 1000;
      const timeLimit = AbortSignal.timeout(config.agentMaxSeconds * 1000);
      const signal = AbortSignal.any([run.signal, timeLimit]);
      const problem = checkModel(run.job.model, config);
      if (problem) throw new JobFailure(problem);
      let workspace: Workspace | null = null;
      let usage: TokenUsage | undefined;
      try {
        const { host, repository } = await dependencies.accessFor(run.job);
        const credentials = await host.gitCredentials(repository);
        if (credentials) redact = createRedactor(config, [credentials.password]);
        workspace = await dependencies.openWorkspace({
          repository,
          ref: run.job.ref,
          branch: run.job.branch,
          jobId: run.job.id,
          // A branch the client named must be new at the job's first run (later runs continue it).
          newBranch: run.job.branch !== jobBranch(run.job.id) && run.messages.filter((message) => message.role === 'user').length <= 1,
          root: config.dataDir,
          credentials,
          signal,
        });
        const work = await workAndCheck(
          {
            model: languageModel(run.job.model, config),
            tools: agentTools(workspace.files, config),
            instructions: systemPrompt({ repository: run.job.repository, baseBranch: workspace.baseBranch, docsPath: run.project.docs_path }),
            messages: conversationFrom(run.messages),
            limits: { maxSteps: config.agentMaxSteps, maxTokens: config.agentMaxTokens, maxRetries: config.agentMaxRetries, deadline },
            signal,
            record: run.record,
            redact,
          },
          workspace,
          config,
        );
        usage = work.usage;
        const change = describeChange(redact(work.summary), run.prompt, run.job);
        return { ...(await publish(run, workspace, host, repository, change, work, redact)), usage: work.usage };
      } catch (error) {
        if (error instanceof CheckoutHeldError && !run.signal.aborted) throw await checkoutStillHeld(config, run.job);
        throw explainFailure(error, run.signal, timeLimit, config, redact, usage);
      } finally {
        await workspace?.dispose();
      }
    },
  };

  async function publish(
    run: JobRun,
    workspace: Workspace,
    host: CodeHost,
    repository: string,
    change: ChangeDescription,
    work: CheckedWork,
    redact: Redactor,
  ): Promise<RunOutcome> {
    const previous = readState(run.state);
    const changeBytes = await workspace.changeBytes();
    if (changeBytes > config.agentMaxChangeBytes) {
      throw new JobFailure(
        `The change is ${changeBytes} bytes (files added or changed against ${workspace.baseBranch}), more than the ${config.agentMaxChangeBytes} bytes QUIRE_AGENT_MAX_CHANGE_BYTES allows; nothing was committed or pushed. Ask for a smaller change, or raise QUIRE_AGENT_MAX_CHANGE_BYTES.`,
      );
    }
    const committed = await workspace.commitAll(commitMessage(change), { name: config.gitAuthorName, email: config.gitAuthorEmail });
    if (!committed && previous) return { prLink: previous.pullRequest.url, state: previous };
    // An earlier run may have pushed and then failed to open the pull request: open it now.
    if (!committed && !(await workspace.hasChangesAgainstBase())) return { prLink: null, state: previous, pullRequest: { draft: false, problems: [] } };
    await pushUnlessCancelled(run, workspace);
    await run.record('event', changeEvent(await workspace.diffAgainstBase(), redact));
    const description = previous ? { title: previous.pullRequest.title, body: appendFollowUp(previous.pullRequest.body, change) } : change;
    const problems = (work.report?.problems ?? []).map((problem) => ({ file: problem.file, line: problem.line ?? null, message: redact(problem.message) }));
    const draft = config.pullRequestDraft || run.job.draft === 1 || problems.length > 0;
    const pullRequest = await host.openOrUpdatePullRequest({
      repository,
      branch: run.job.branch,
      jobId: run.job.id,
      base: workspace.baseBranch,
      title: description.title,
      // The Checks section describes this run's check of the whole change; the state keeps the body without it.
      body: work.report ? `${description.body}\n\n${checksSection(work.report, work.rounds)}` : description.body,
      draft,
      existingNumber: previous?.pullRequest.number ?? null,
    });
    const state: RunnerState = { pullRequest: { number: pullRequest.number, url: pullRequest.url, ...description } };
    return { prLink: pullRequest.url, state, pullRequest: { draft: pullRequest.draft ?? draft, problems } };
  }
}

/** Largest diff kept in the transcript (the dashboard shows it); the pull request has the whole change. */
const maxRecordedDiffBytes = 256 * 1024;

/** The transcript event of a pushed change: what the dashboard's job page shows as the diff. */
export function changeEvent(diff: ChangeDiff, redact: Redactor): Record<string, unknown> {
  // The diff holds what the model wrote, which may repeat a credential it saw: redacted like every transcript entry.
  const patch = redact(diff.patch);
  const truncated = Buffer.byteLength(patch) > maxRecordedDiffBytes;
  return { type: 'change-pushed', files: diff.files, diff: truncated ? patch.slice(0, maxRecordedDiffBytes) : patch, truncated };
}

/**
 * Pushes only while the run still owns its job (asked of the database, since a cancel may come from
 * another process), and asks again afterwards: a cancel that landed during the push takes the push back.
 */
async function pushUnlessCancelled(run: JobRun, workspace: Workspace): Promise<void> {
  if (!(await run.stillRunning())) throw run.signal.reason;
  let failure: unknown = null;
  await workspace.push().catch((error: unknown) => (failure = error));
  if (!(await run.stillRunning())) {
    await workspace.retractPush();
    throw run.signal.reason;
  }
  if (failure) throw failure;
}

/** The state a job's previous run left (a runner's, or an admin MCP session's save), or null. */
export function readState(state: unknown): RunnerState | null {
  const pullRequest = (state as Partial<RunnerState> | null)?.pullRequest;
  return pullRequest && typeof pullRequest.number === 'number' && typeof pullRequest.url === 'string' ? { pullRequest } : null;
}

/**
 * The run's time ran out while it waited for the job's checkout, which it never opened: the job's `error` says who
 * held it and what to do, not that the agent was slow.
 */
async function checkoutStillHeld(config: Config, job: JobRow): Promise<JobFailure> {
  const waited = `This run waited ${config.agentMaxSeconds} seconds (QUIRE_AGENT_MAX_SECONDS) for the job's checkout and changed nothing:`;
  if (await sessionHoldsCheckout(config.dataDir, job.id, config.mcpSessionIdleMinutes)) {
    return new JobFailure(
      `${waited} an admin MCP session has the job's branch ${job.branch} checked out, and stays open after its saves until it is idle for ${config.mcpSessionIdleMinutes} minutes (QUIRE_MCP_SESSION_IDLE_MINUTES). Continue in that session, or send a follow-up once it has ended.`,
    );
  }
  return new JobFailure(`${waited} an earlier run of the job still held it. Send a follow-up once that run has ended.`);
}

/** Turns what stopped the run into the job's `error`; aborts by the worker pass through untouched. */
function explainFailure(error: unknown, stop: AbortSignal, timeLimit: AbortSignal, config: Config, redact: Redactor, usage: TokenUsage | undefined): unknown {
  if (stop.aborted) return stop.reason;
  if (timeLimit.aborted || (error instanceof LlmLoopError && error.kind === 'time-limit')) {
    return new JobFailure(
      `The agent ran out of time: jobs may run ${config.agentMaxSeconds} seconds (QUIRE_AGENT_MAX_SECONDS). Raise QUIRE_AGENT_MAX_SECONDS or split the request into smaller follow-ups.`,
      { usage },
    );
  }
  if (error instanceof JobFailure) return new JobFailure(redact(error.message), { usage: error.usage ?? usage });
  if (error instanceof WorkspaceGitError || error instanceof WorkspacePathError || error instanceof CodeHostError)
    return new JobFailure(redact(error.message), { usage });
  return error;
}
