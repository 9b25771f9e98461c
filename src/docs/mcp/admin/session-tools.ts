import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { keyCanSeeProject, type Scope } from '../../../accounts/keys.ts';
import { findProject } from '../../../accounts/projects.ts';
import type { AppContext } from '../../../http/context.ts';
import { ApiError } from '../../../http/errors.ts';
import { newId } from '../../../lib/ids.ts';
import { cap } from '../../../llm/caps.ts';
import { completeSessionJob, endSessionJob, openSessionJob, recordSessionEntry, reopenSessionJob, sessionJob } from '../../../jobs/sessions.ts';
import { jobView } from '../../../jobs/view.ts';
import type { ApiKeyRow } from '../../../storage/tables/accounts.ts';
import type { JobRow } from '../../../storage/tables/jobs.ts';
import type { McpClientInfo } from '../source.ts';
import { refusal, structured, text } from './results.ts';
import type { OpenSession } from './sessions.ts';
import { TranscriptBuffer } from './transcript-buffer.ts';

interface SessionToolsOptions {
  context: AppContext;
  key: ApiKeyRow;
  client: () => McpClientInfo;
  lacks: (scope: Scope) => CallToolResult | null;
}

/** Size of one tool input or result in the transcript, as for Quire's agent (agent/job-loop.ts). */
const transcriptLimit = 4_000;

/** Errors whose message is written for the person or agent that caused them (no secrets, no server paths). */
const explained = new Set(['SaveRefusal', 'WorkspaceGitError', 'WorkspacePathError', 'CodeHostError']);

const sessionId = z.string().min(1).max(64).describe('The session, as checkout returned it.');
const writes = new Set(['write_file', 'edit_file', 'delete_file', 'move_file']);

// Inputs built once: a server is made per HTTP request, and building the schemas again was most of its cost.
const checkoutInput = {
  projectId: z.string().min(1).max(64).describe('The project, as list_projects gives it.'),
  branch: z.string().min(1).max(200).optional().describe('The work branch of an earlier session or job of this project, to continue it.'),
  ref: z.string().min(1).max(200).optional().describe('Branch or ref a new session starts from; default the project’s ref.'),
};
const saveInput = {
  sessionId,
  title: z.string().min(1).max(200).optional().describe('Pull request title; default the earlier save’s, else one naming the session.'),
  body: z.string().max(20_000).optional().describe('Pull request description, in Markdown; on a later save it is added as a follow-up section.'),
  draft: z.boolean().optional().describe('true: open as draft; false: ready for review even if checks report problems; default: draft while problems remain.'),
};
/** A file tool's input with the session id, per tool spec (the workbench's specs live as long as the process). */
const fileToolInputs = new WeakMap<object, z.ZodRawShape>();
function fileToolInput<Shape extends z.ZodRawShape>(spec: { inputSchema: z.ZodObject<Shape> }): { sessionId: typeof sessionId } & Shape {
  let input = fileToolInputs.get(spec) as ({ sessionId: typeof sessionId } & Shape) | undefined;
  if (!input) fileToolInputs.set(spec, (input = { sessionId, ...spec.inputSchema.shape }));
  return input;
}

/** `checkout`, the agent's file tools, `diff`, `check` and `save`: the tools that work in a session. */
export class SessionTools {
  private readonly options: SessionToolsOptions;

  constructor(options: SessionToolsOptions) {
    this.options = options;
  }

  register(server: McpServer): void {
    const { context, lacks } = this.options;
    const idle = context.config.mcpSessionIdleMinutes;

    server.registerTool(
      'checkout',
      {
        title: 'Open an editing session',
        description:
          'Opens a session on a project’s repository: a new work branch from `ref` (default the project’s), or, with `branch`, the branch of an ' +
          'earlier session or agent job of the project, to continue it and its pull request. The session is an agent job (origin "mcp") and ' +
          `counts towards the project’s hourly job limit. It ends after ${idle} idle minutes; what was saved stays. ` +
          'Returns {sessionId, jobId, branch}. Next: list_files, read_file, search, then edit, check and save.',
        inputSchema: checkoutInput,
        annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
      },
      (input) => lacks('write') ?? this.guard(() => this.checkout(input)),
    );

    for (const spec of context.workbench.tools) {
      const changes = writes.has(spec.name);
      server.registerTool(
        spec.name,
        {
          description: `${spec.description} Works in the session’s workspace (sessionId from checkout); paths are relative to the repository root, and paths outside it, symbolic links leaving it and .git/ are refused.${changes ? ' Changes stay in the workspace until save.' : ''}`,
          inputSchema: fileToolInput(spec),
          annotations: changes
            ? { readOnlyHint: false, destructiveHint: spec.name !== 'write_file', idempotentHint: false, openWorldHint: false }
            : { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
        },
        ({ sessionId: id, ...input }) =>
          (changes ? lacks('write') : null) ??
          this.inSession(id, spec.name, input, async (session) => {
            const answer = await session.bench.callTool(spec.name, input);
            return answer.isError ? refusal(answer.text) : text(answer.text);
          }),
      );
    }

    server.registerTool(
      'diff',
      {
        title: 'Show the change',
        description: 'Shows the session’s change against its base branch as a unified diff, edits not yet saved included. Empty when nothing changed.',
        inputSchema: { sessionId },
        annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
      },
      ({ sessionId: id }) =>
        this.inSession(id, 'diff', {}, async (session) => {
          const patch = await session.bench.diff();
          return text(patch === '' ? 'No change against the base branch yet.' : patch);
        }),
    );

    server.registerTool(
      'check',
      {
        title: 'Check the change',
        description:
          'Runs the docs checks Quire’s agent runs before it commits (pages compile, front matter, configuration files, links, navigation) on the ' +
          'session’s change and returns {problems: [{file, message}]}. Fix each problem with the file tools and check again; save opens a draft ' +
          'pull request while problems remain.',
        inputSchema: { sessionId },
        annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
      },
      ({ sessionId: id }) =>
        this.inSession(id, 'check', {}, async (session) => {
          const report = await session.bench.check();
          return structured({ problems: (report?.problems ?? []).map((problem) => ({ file: problem.file, message: lineOf(problem) + problem.message })) });
        }),
    );

    server.registerTool(
      'save',
      {
        title: 'Save: commit, push and open the pull request',
        description:
          'Commits the session’s change, pushes its branch and opens the pull request, or updates it on a later save. The pull request is a draft ' +
          'when `draft` is true, or, when `draft` is not given, while check still reports problems. Returns the job object with its prLink, ' +
          'draft and the problems that remain. The session stays open: edit and save again to update the same pull request.',
        inputSchema: saveInput,
        annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
      },
      ({ sessionId: id, ...input }) => lacks('write') ?? this.inSession(id, 'save', input, (session) => this.save(session, input)),
    );
  }

  private async checkout({ projectId, branch, ref }: { projectId: string; branch?: string; ref?: string }): Promise<CallToolResult> {
    const { context, key } = this.options;
    const project = await context.accounts.projects.get(projectId, () => findProject(context.storage.db, projectId));
    if (!project || !keyCanSeeProject(key, project)) return refusal(`Project ${projectId} not found. Call list_projects for the projects this key may edit.`);
    if (branch !== undefined && ref !== undefined) return refusal('Give either branch (to continue it) or ref (to start a new branch from it), not both.');
    const clientName = this.options.client().name;
    if (branch !== undefined) {
      const held = await this.release(project.id, branch);
      if (held) return held;
    }
    const opener = `${key.name} (${key.prefix}…)`;
    const job =
      branch === undefined ? await openSessionJob(context, project, { ref, clientName, opener }) : await reopenSessionJob(context, project, branch, clientName);
    let bench: OpenSession['bench'];
    try {
      bench = await context.workbench.open(job, { newBranch: branch === undefined });
    } catch (error) {
      const reason = explained.has((error as Error).name) ? (error as Error).message : 'The workspace could not be opened.';
      await endSessionJob(context, job.id, { reason: `Checkout failed: ${reason}`, unsaved: false, failed: true });
      throw error;
    }
    const session: OpenSession = {
      id: newId('mcs'),
      orgId: project.org_id,
      projectId: project.id,
      jobId: job.id,
      clientName,
      bench,
      lastUsed: Date.now(),
      turn: Promise.resolve(),
      transcript: new TranscriptBuffer(context.storage.db, job.id, (error) =>
        context.logger.error({ err: error, jobId: job.id }, 'could not write an admin MCP session’s transcript'),
      ),
    };
    context.adminSessions.add(session);
    const result = structured({ sessionId: session.id, jobId: job.id, branch: job.branch, baseBranch: bench.baseBranch });
    this.record(session, 'checkout', { projectId, branch, ref }, result);
    return result;
  }

  /**
   * A branch held by a session of this process is given to the new checkout when that session saved
   * everything (its client probably lost the session id); one with unsaved edits keeps it.
   */
  private async release(projectId: string, branch: string): Promise<CallToolResult | null> {
    const { context } = this.options;
    const job = await context.storage.db.selectFrom('jobs').select('id').where('project_id', '=', projectId).where('branch', '=', branch).executeTakeFirst();
    const holder = job ? context.adminSessions.byJob(job.id) : undefined;
    if (!holder) return null;
    if (await holder.bench.hasUnsavedChanges()) {
      return refusal(`Branch ${branch} is open in session ${holder.id}, with edits not saved yet: continue in that session and save, or wait until it ends.`);
    }
    await context.adminSessions.close(holder.id);
    await endSessionJob(context, holder.jobId, { reason: 'Another checkout of the branch took it over.', unsaved: false });
    return null;
  }

  private async save(session: OpenSession, input: { title?: string; body?: string; draft?: boolean }): Promise<CallToolResult> {
    const { context } = this.options;
    const db = context.storage.db;
    return context.adminSessions.serialize(session, async () => {
      // The calls before the save come first in the transcript.
      await session.transcript.flush();
      const outcome = await session.bench.save({
        ...input,
        fallback: {
          title: `Docs changes from ${session.clientName}`,
          body: `Made by ${session.clientName} in Quire admin MCP session ${session.jobId}.`,
        },
        stillOpen: async () => {
          const job = await sessionJob(db, session.jobId);
          return job?.status === 'active' || job?.status === 'completed';
        },
      });
      if (outcome.pushed) await recordSessionEntry(db, session.jobId, 'event', outcome.pushed);
      const problems = outcome.problems.map((problem) => ({ file: problem.file, line: problem.line ?? null, message: session.bench.redact(problem.message) }));
      await recordSessionEntry(db, session.jobId, 'event', { type: 'checks', round: 0, passed: problems.length === 0, problems });
      const pullRequest = { draft: outcome.draft, problems };
      return structured(jobView(await completeSessionJob(context, session.jobId, { prLink: outcome.prLink, state: outcome.state, pullRequest })));
    });
  }

  /** Runs a tool in the session `id` when the key may see it and its job is still open, and records the call in the job's transcript. */
  private async inSession(
    id: string,
    tool: string,
    input: Record<string, unknown>,
    work: (session: OpenSession) => Promise<CallToolResult>,
  ): Promise<CallToolResult> {
    const { context, key } = this.options;
    const session = context.adminSessions.find(id, key, (projectId) => keyCanSeeProject(key, { id: projectId, org_id: key.org_id }));
    if (!session) {
      return refusal(
        `Session ${id} not found: it ended (idle for ${context.config.mcpSessionIdleMinutes} minutes, cancelled, or held by another Quire server) or this key may not see it. Call checkout again; give the branch to continue what was saved.`,
      );
    }
    const job = await sessionJob(context.storage.db, session.jobId);
    if (!job || job.status === 'failed' || job.status === 'archived') {
      await context.adminSessions.close(session.id);
      return refusal(ended(session.jobId, job));
    }
    const result = await this.guard(() => work(session));
    this.record(session, tool, input, result);
    return result;
  }

  /** Refusals of the API (limits, conflicts) and explained failures become tool refusals; anything else is logged and answered generically. */
  private async guard(work: () => Promise<CallToolResult>): Promise<CallToolResult> {
    try {
      return await work();
    } catch (error) {
      if (error instanceof ApiError) return refusal(error.message);
      if (error instanceof Error && explained.has(error.name)) return refusal(error.message);
      this.options.context.logger.error({ err: error }, 'admin MCP tool failed');
      return refusal('Quire failed to run this tool (an internal error, logged on the server). Try again; if it persists, tell the operator.');
    }
  }

  /** Appends the call to the job's transcript (written in a batch after the answer), redacted and capped like Quire's agent's tool calls. */
  private record(session: OpenSession, tool: string, input: Record<string, unknown>, result: CallToolResult): void {
    const redact = session.bench.redact;
    const output = result.content.map((part) => (part.type === 'text' ? part.text : `[${part.type}]`)).join('\n');
    session.transcript.add('tool', {
      tool,
      input: safeJson(cap(redact(JSON.stringify(input)), transcriptLimit)),
      result: cap(redact(output), transcriptLimit),
      ...(result.isError ? { error: true } : {}),
    });
  }
}

function ended(jobId: string, job: JobRow | undefined): string {
  if (!job) return `Session ended: job ${jobId} no longer exists. Call checkout to start again.`;
  return `Session ended: job ${job.id} is ${job.status}${job.error ? ` (${job.error})` : ''}. Call checkout with branch ${job.branch} to continue from what was saved.`;
}

function lineOf(problem: { line?: number }): string {
  return problem.line ? `line ${problem.line}: ` : '';
}

/** The redacted input as JSON when it still parses (it does unless it was cut), else as text. */
function safeJson(value: string): unknown {
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}
