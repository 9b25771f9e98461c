import type { ZodType } from 'zod';
import type { CodeHost } from '../code-hosts/types.ts';
import type { Config } from '../config/config.ts';
import type { Problem } from '../sites/site.ts';
import type { JobRow } from '../storage/tables/jobs.ts';
import type { Workspace } from '../workspace/types.ts';
import { appendFollowUp, commitMessage, type ChangeDescription } from './change-description.ts';
import { checksSection } from './checks/report.ts';
import type { CheckReport } from './checks/types.ts';
import type { Redactor } from './redact.ts';
import { checkWorkspace } from './repair.ts';
import { changeEvent, readState, type RunnerState } from './runner.ts';
import { agentTools, type AgentTools } from './tools/index.ts';

export interface SaveRequest {
  /** Pull request title; default the earlier save's, else `fallback`'s. */
  title?: string;
  /** Pull request description; on a later save it is appended as a follow-up section, as the agent's follow-ups are. */
  body?: string;
  /** Open (or leave) the pull request as draft; when not given, draft exactly when the checks still report problems (or the job or server asks for drafts). */
  draft?: boolean;
  /** The title and body when the caller gave none and no earlier save named them. */
  fallback: ChangeDescription;
  /** Asked right before and after pushing: false once the session's job was cancelled, and a push that raced it is taken back. */
  stillOpen(): Promise<boolean>;
}

export interface SaveOutcome {
  /** The pull request, or null when the branch holds no change against its base. */
  prLink: string | null;
  /** The job's state for a later save or follow-up (the pull request number and description). */
  state: RunnerState | null;
  draft: boolean;
  /** What the checks still report for the saved change. */
  problems: Problem[];
  /** Whether this save made a commit (false when everything was already saved). */
  committed: boolean;
  /** The pushed change for the transcript (redacted, capped), when something was pushed. */
  pushed: Record<string, unknown> | null;
}

/** A tool's answer as the model would get it; `isError` when it is a refusal. */
export interface ToolAnswer {
  text: string;
  isError: boolean;
}

/** The check of the change as a repair round sees it; null when the change touches no file. */
export type CheckOutcome = CheckReport | null;

/** One agent's session on a job's branch: Quire's agent tools, checks and publishing, driven by someone else's agent. */
export interface WorkbenchSession {
  branch: string;
  baseBranch: string;
  /** Runs one of the agent's file tools on the session's workspace, with its limits and refusals. */
  callTool(name: keyof AgentTools, input: unknown): Promise<ToolAnswer>;
  /** The change against the base, edits not yet saved included, as a unified diff. */
  diff(): Promise<string>;
  check(signal?: AbortSignal): Promise<CheckOutcome>;
  /** Commits, pushes and opens or updates the pull request. Callers take turns: one save at a time. */
  save(request: SaveRequest): Promise<SaveOutcome>;
  /** Whether the workspace holds edits a save has not committed. */
  hasUnsavedChanges(): Promise<boolean>;
  redact: Redactor;
  dispose(): Promise<void>;
}

/** A refusal of save that changes nothing, in a sentence the agent can act on. */
export class SaveRefusal extends Error {
  override name = 'SaveRefusal';
}

interface SessionParts {
  config: Config;
  job: JobRow;
  workspace: Workspace;
  host: CodeHost;
  repository: string;
  redact: Redactor;
}

export function openWorkbenchSession({ config, job, workspace, host, repository, redact }: SessionParts): WorkbenchSession {
  // One set of tools for the whole session: edit_file accepts files read earlier in the session, and the running change total holds for it.
  const tools = agentTools(workspace.files, config);
  let state = readState(job.runner_state ? JSON.parse(job.runner_state) : null);
  const closed = new AbortController();

  return {
    branch: job.branch,
    baseBranch: workspace.baseBranch,
    redact,
    async callTool(name, input) {
      // The tools are defined with zod objects (agent/tools/); the input is checked again here, whoever calls.
      const chosen = tools[name] as unknown as {
        inputSchema: ZodType;
        execute(input: unknown, options: { toolCallId: string; messages: [] }): Promise<string>;
      };
      const parsed = chosen.inputSchema.safeParse(input);
      if (!parsed.success)
        return {
          text: `Error: the input of ${name} does not match its schema: ${parsed.error.issues.map((issue) => `${issue.path.join('.') || 'input'}: ${issue.message}`).join('; ')}.`,
          isError: true,
        };
      const text = await chosen.execute(parsed.data, { toolCallId: name, messages: [] });
      return { text, isError: text.startsWith('Error:') };
    },
    async diff() {
      return (await workspace.stagedDiff()).patch;
    },
    check(signal) {
      return checkWorkspace(workspace, config, signal ? AbortSignal.any([signal, closed.signal]) : closed.signal);
    },
    async save(request) {
      const changeBytes = await workspace.changeBytes();
      if (changeBytes > config.agentMaxChangeBytes) {
        throw new SaveRefusal(
          `The change is ${changeBytes} bytes (files added or changed against ${workspace.baseBranch}), more than the ${config.agentMaxChangeBytes} bytes one change may have (QUIRE_AGENT_MAX_CHANGE_BYTES); nothing was committed or pushed. Make it smaller with delete_file or write_file, then call save again.`,
        );
      }
      const report = await checkWorkspace(workspace, config, closed.signal);
      const problems = report?.problems ?? [];
      const previous = state?.pullRequest ?? null;
      const title = request.title ?? previous?.title ?? request.fallback.title;
      const body = previous
        ? request.body
          ? appendFollowUp(previous.body, { title, body: request.body })
          : previous.body
        : (request.body ?? request.fallback.body);
      const committed = await workspace.commitAll(commitMessage({ title, body: request.body ?? request.fallback.body }), {
        name: config.gitAuthorName,
        email: config.gitAuthorEmail,
      });
      const draft = request.draft ?? (config.pullRequestDraft || job.draft === 1 || problems.length > 0);
      if (!committed && !(await workspace.hasChangesAgainstBase())) return { prLink: previous?.url ?? null, state, draft, problems, committed, pushed: null };
      if (!(await request.stillOpen())) throw new SaveRefusal('The session was cancelled; nothing was pushed. Call checkout to start again.');
      let failure: unknown = null;
      await workspace.push().catch((error: unknown) => (failure = error));
      if (!(await request.stillOpen())) {
        await workspace.retractPush();
        throw new SaveRefusal('The session was cancelled while saving; the push was taken back. Call checkout to start again.');
      }
      if (failure) throw failure;
      const pushed = changeEvent(await workspace.diffAgainstBase(), redact);
      const pullRequest = await host.openOrUpdatePullRequest({
        repository,
        branch: job.branch,
        jobId: job.id,
        base: workspace.baseBranch,
        title,
        body: report ? `${body}\n\n${checksSection(report, 0)}` : body,
        draft,
        existingNumber: previous?.number ?? null,
      });
      state = { pullRequest: { number: pullRequest.number, url: pullRequest.url, title, body } };
      return { prLink: pullRequest.url, state, draft, problems, committed, pushed };
    },
    hasUnsavedChanges() {
      return workspace.hasUncommittedChanges();
    },
    async dispose() {
      closed.abort(new Error('The session ended.'));
      await workspace.dispose();
    },
  };
}
