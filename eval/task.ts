import type { ToolCallReply } from '../test/support/openai-server.ts';
import type { SiteKind } from '../src/sites/site.ts';
import type { Branch } from './branch.ts';

/** What a scripted model does for one prompt: tool calls step by step, then its answer. */
export interface ScriptedRun {
  steps: ToolCallReply[][];
  answer: string;
}

/** A documentation task: a generated repository, the prompts a user sends, and how the result is graded. */
export interface EvalTask {
  /** Unique, also the repository's folder name. */
  name: string;
  /** The kind of site `files` hold, as `sites/` finds it. */
  framework: SiteKind;
  files: Record<string, string>;
  /** The first prompt, then follow-ups sent after each run finished. */
  prompts: string[];
  /** A scripted model that solves the task (one run per prompt): proves the harness and the graders work. */
  solution: ScriptedRun[];
  /** Deterministic checks of the result; each returned sentence is a reason it failed (none: it passed). */
  grade(outcome: Outcome): Promise<string[]> | string[];
}

/** What the job left behind, read from the repository it pushed to. */
export interface Outcome {
  /** The job branch as pushed, or null when nothing was pushed. */
  branch: Branch | null;
  /** The base branch. */
  base: Branch;
  /** The job's status after each prompt. */
  statuses: string[];
  /** The job's `prLink` after each prompt. */
  prLinks: (string | null)[];
  /** The job's error, when it failed. */
  error: string | null;
  /** The agent's last answer. */
  answer: string;
}

/** A grader's verdict on the outcome: the reasons it failed, none when it passed. */
export type Verdict = string[];

/** Writes a file (the scripted models' only way to change one). */
export const write = (path: string, content: string): ToolCallReply => ({ name: 'write_file', arguments: { path, content } });
export const read = (path: string): ToolCallReply => ({ name: 'read_file', arguments: { path } });
export const move = (from: string, to: string): ToolCallReply => ({ name: 'move_file', arguments: { from, to } });
export const remove = (path: string): ToolCallReply => ({ name: 'delete_file', arguments: { path } });
