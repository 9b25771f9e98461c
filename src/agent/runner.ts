import type { RepositoryAccess } from '../code-hosts/access.ts';
import type { CodeHost, PullRequest } from '../code-hosts/types.ts';
import { CodeHostError } from '../code-hosts/types.ts';
import type { TokenUsage } from '../jobs/token-usage.ts';
import { JobFailure, type AgentRunner, type JobRun, type RunOutcome } from '../jobs/runner.ts';
import type { JobRow } from '../storage/tables/jobs.ts';
import type { Config } from '../config/config.ts';
import { WorkspaceGitError, WorkspacePathError, type Workspace, type WorkspaceOptions } from '../workspace/types.ts';
import { appendFollowUp, commitMessage, describeChange, type ChangeDescription } from './change-description.ts';
import { conversationFrom } from './conversation.ts';
import { runLoop } from './loop.ts';
import { checkModel, languageModel } from './models.ts';
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
interface RunnerState {
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
        workspace = await dependencies.openWorkspace({ repository, ref: run.job.ref, branch: run.job.branch, root: config.dataDir, credentials, signal });
        const loop = await runLoop({
          model: languageModel(run.job.model, config),
          tools: agentTools(workspace.files, config),
          instructions: systemPrompt({ repository: run.job.repository, baseBranch: workspace.baseBranch, docsPath: run.project.docs_path }),
          messages: conversationFrom(run.messages),
          limits: { maxSteps: config.agentMaxSteps, maxTokens: config.agentMaxTokens, maxRetries: config.agentMaxRetries },
          signal,
          record: run.record,
          redact,
        });
        usage = loop.usage;
        const change = describeChange(redact(loop.summary), run.prompt, run.job);
        return { ...(await publish(run, workspace, host, repository, change)), usage: loop.usage };
      } catch (error) {
        throw explainFailure(error, run.signal, timeLimit, config, redact, usage);
      } finally {
        await workspace?.dispose();
      }
    },
  };

  async function publish(run: JobRun, workspace: Workspace, host: CodeHost, repository: string, change: ChangeDescription): Promise<RunOutcome> {
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
    if (!committed && !(await workspace.hasChangesAgainstBase())) return { prLink: null, state: previous };
    await workspace.push();
    const description = previous ? { title: previous.pullRequest.title, body: appendFollowUp(previous.pullRequest.body, change) } : change;
    const pullRequest = await host.openOrUpdatePullRequest({
      repository,
      branch: run.job.branch,
      base: workspace.baseBranch,
      ...description,
      draft: config.pullRequestDraft,
      existingNumber: previous?.pullRequest.number ?? null,
    });
    const state: RunnerState = { pullRequest: { number: pullRequest.number, url: pullRequest.url, ...description } };
    return { prLink: pullRequest.url, state };
  }
}

function readState(state: unknown): RunnerState | null {
  const pullRequest = (state as Partial<RunnerState> | null)?.pullRequest;
  return pullRequest && typeof pullRequest.number === 'number' && typeof pullRequest.url === 'string' ? { pullRequest } : null;
}

/** Turns what stopped the run into the job's `error`; aborts by the worker pass through untouched. */
function explainFailure(error: unknown, stop: AbortSignal, timeLimit: AbortSignal, config: Config, redact: Redactor, usage: TokenUsage | undefined): unknown {
  if (stop.aborted) return stop.reason;
  if (timeLimit.aborted) {
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
