import type { TokenUsage } from './token-usage.ts';
import type { JobReadCache } from './read-cache.ts';
import type { ProjectRow } from '../storage/tables/accounts.ts';
import type { JobRow, MessageRole } from '../storage/tables/jobs.ts';

export interface TranscriptMessage {
  seq: number;
  role: MessageRole;
  content: Record<string, unknown>;
  createdAt: string;
}

/** Everything a runner gets for one run of a job (the first run, or one after a follow-up). */
export interface JobRun {
  job: JobRow;
  project: ProjectRow;
  /** The prompt this run answers: the newest user message. */
  prompt: string;
  /** The whole transcript so far, oldest first, including `prompt`. */
  messages: TranscriptMessage[];
  /** What the runner saved at the end of the job's previous run (pull request number, …); null at first. */
  state: unknown;
  /** Aborted when the worker shuts down, loses the job's lease or the job is cancelled; stop promptly. */
  signal: AbortSignal;
  /**
   * Asks the database whether this run still owns the job (false once it was cancelled, and then
   * `signal` is aborted too). Checked right before and after pushing: nothing is pushed after a cancel.
   */
  stillRunning(): Promise<boolean>;
  /** Appends to the job's transcript (`GET …/messages`). Never pass secrets. */
  record(role: MessageRole, content: Record<string, unknown>): Promise<void>;
}

/** A problem the docs checks still report for a job's pushed change (the job object's `problems`). */
export interface JobProblem {
  /** Path relative to the repository root. */
  file: string;
  /** 1-based line, or null when the problem has none. */
  line: number | null;
  message: string;
}

/** Problems a job keeps (the first ones, in the checks' order); `problem_count` says how many there were. */
export const maxJobProblems = 50;
/** Longest problem message a job keeps, in characters. */
export const maxJobProblemMessage = 1_000;

export interface RunOutcome {
  /** URL of the pull request holding the job's changes, or null when it has none. */
  prLink: string | null;
  /**
   * What this run left on the pull request: whether it is a draft and what the checks still report.
   * Absent when the run did not publish (nothing new to push): the job keeps what the last run left.
   */
  pullRequest?: { draft: boolean; problems: JobProblem[] };
  /** Kept for the job's next run. */
  state?: unknown;
  usage?: TokenUsage;
}

/** Runs an agent job. Throw `JobFailure` with a sentence the user can act on to fail the job. */
export interface AgentRunner {
  run(run: JobRun): Promise<RunOutcome>;
}

/** An unrecoverable, explained failure: its message becomes the job's `error`. */
export class JobFailure extends Error {
  override name = 'JobFailure';
  /** Tokens the run used before it failed. */
  readonly usage: TokenUsage | undefined;

  constructor(message: string, options: { usage?: TokenUsage } = {}) {
    super(message);
    this.usage = options.usage;
  }
}

declare module '../http/context.ts' {
  interface AppContext {
    /** Whether a project can take jobs, with which model, and the runner (see agent/setup.ts). */
    agent: AgentSetup;
    /** JSON of polled jobs while nothing has changed (see jobs/read-cache.ts). */
    jobReads: JobReadCache;
  }
  interface QuireEvents {
    /** A job run was committed to the queue by this process; local workers wake up at once. */
    'job-enqueued': [];
  }
}

/** The agent as the job API sees it: whether a project can take jobs, with which model, and the runner. */
export interface AgentSetup {
  runner: AgentRunner;
  /** The `provider:model` jobs of this project use, or null when none is configured. */
  modelFor(project: ProjectRow): string | null;
  /** Why the project cannot take agent jobs yet (a sentence saying what to set), or null when it can. */
  checkProject(project: ProjectRow): string | null;
}
