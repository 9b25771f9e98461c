import type { Config } from '../config/config.ts';
import type { JobRun } from '../jobs/runner.ts';
import type { Workspace } from '../workspace/types.ts';
import { checkChange } from './checks/index.ts';
import { repairRequest } from './checks/report.ts';
import type { CheckReport } from './checks/types.ts';
import { workspaceChange } from './checks/workspace-change.ts';
import { runJobLoop, type JobLoopResult, type LoopOptions } from './job-loop.ts';
import type { Redactor } from './redact.ts';

export interface CheckedWork extends JobLoopResult {
  /** The last check of the change; null when the change touches no file. */
  report: CheckReport | null;
  /** Repair rounds the model was given. */
  rounds: number;
}

/**
 * Lets the model work, then checks its change as the docs build would; problems go back to it as one
 * message, for up to QUIRE_CHECK_REPAIR_ROUNDS more loops. Each check is recorded in the transcript.
 * The step and token limits hold for the whole run, so a round that has no budget left is not started.
 */
export async function workAndCheck(options: LoopOptions, workspace: Workspace, config: Config): Promise<CheckedWork> {
  let loop = await runJobLoop(options);
  for (let round = 0; ; round++) {
    const report = await checkWorkspace(workspace, config, options.signal);
    options.signal.throwIfAborted();
    if (report) await recordReport(options.record, options.redact, report, round);
    const used = loop.usage.inputTokens + loop.usage.outputTokens;
    const budgetLeft = loop.steps < options.limits.maxSteps && used < options.limits.maxTokens;
    if (!report || report.problems.length === 0 || round >= config.checkRepairRounds || !budgetLeft) return { ...loop, report, rounds: round };
    loop = await runJobLoop({
      ...options,
      messages: [...loop.messages, { role: 'user', content: repairRequest(report) }],
      spent: { usage: loop.usage, steps: loop.steps },
    });
  }
}

/** The docs checks of the workspace's change, as a repair round sees them; null when the change touches no file. */
export async function checkWorkspace(workspace: Workspace, config: Config, signal: AbortSignal): Promise<CheckReport | null> {
  const change = await workspaceChange(workspace, config.checkMaxFileBytes);
  if (!change) return null;
  return checkChange(change, {
    maxFileBytes: config.checkMaxFileBytes,
    maxScannedFiles: 5_000,
    pageTimeoutMs: 10_000,
    deadline: Date.now() + config.checkMaxSeconds * 1000,
    signal,
  });
}

function recordReport(record: JobRun['record'], redact: Redactor, report: CheckReport, round: number): Promise<void> {
  return record('event', {
    type: 'checks',
    round,
    passed: report.problems.length === 0,
    checked: report.checked,
    problems: report.problems.map((problem) => ({ ...problem, message: redact(problem.message) })),
    skipped: report.skipped,
  });
}
