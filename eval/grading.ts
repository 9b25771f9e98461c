import type { Branch } from './branch.ts';
import type { Outcome, Verdict } from './task.ts';

/**
 * Graders shared by the tasks. Each returns the reasons the outcome fails, so a task's grade is the
 * concatenation of the graders it applies; an empty list passes.
 */

/** The job completed after every prompt and pushed a branch. */
export function changed(outcome: Outcome): Verdict {
  const failed = outcome.statuses.findIndex((status) => status !== 'completed');
  if (failed >= 0) return [`run ${failed + 1} ended ${outcome.statuses[failed]}${outcome.error ? `: ${outcome.error}` : ''}`];
  if (!outcome.branch) return ['no branch was pushed'];
  if (outcome.prLinks.some((link) => link === null)) return ['a run ended without a pull request link'];
  return [];
}

/** The job completed and pushed nothing. */
export function unchanged(outcome: Outcome): Verdict {
  if (outcome.statuses.some((status) => status !== 'completed'))
    return [`the job ended ${outcome.statuses.join(', ')}${outcome.error ? `: ${outcome.error}` : ''}`];
  if (outcome.branch)
    return [
      `a branch was pushed changing ${outcome.branch
        .changes(outcome.base)
        .map((change) => change.path)
        .join(', ')}`,
    ];
  if (outcome.prLinks.some((link) => link !== null)) return ['a pull request link was set'];
  return [];
}

export function contains(branch: Branch | null, path: string, ...texts: string[]): Verdict {
  const content = branch?.read(path) ?? null;
  if (content === null) return [`${path} is missing`];
  return texts.filter((text) => !content.includes(text)).map((text) => `${path} does not contain ${JSON.stringify(text)}`);
}

export function lacks(branch: Branch | null, path: string, ...texts: string[]): Verdict {
  const content = branch?.read(path) ?? '';
  return texts.filter((text) => content.includes(text)).map((text) => `${path} still contains ${JSON.stringify(text)}`);
}

export function missing(branch: Branch | null, path: string): Verdict {
  return branch?.has(path) ? [`${path} still exists`] : [];
}

/** No file of the branch contains `text`. */
export function nowhere(branch: Branch | null, text: string): Verdict {
  return (branch?.files ?? []).filter((path) => (branch?.read(path) ?? '').includes(text)).map((path) => `${path} still contains ${JSON.stringify(text)}`);
}

/** Only these files changed (others are unrelated edits). */
export function onlyChanged(outcome: Outcome, paths: string[]): Verdict {
  const extra = (outcome.branch?.changes(outcome.base) ?? []).map((change) => change.path).filter((path) => !paths.includes(path));
  return extra.length ? [`unrelated files changed: ${extra.join(', ')}`] : [];
}

/** Quire's own docs checks pass on the pushed change: pages compile, links resolve, navigation is complete. */
export async function checksPass(outcome: Outcome): Promise<Verdict> {
  if (!outcome.branch) return [];
  return (await outcome.branch.problems(outcome.base)).map((problem) => `${problem.file}${problem.line ? `:${problem.line}` : ''} ${problem.message}`);
}

/** Every occurrence of `before` became `after`: as many `after` as the base had of both. */
export function replacedEverywhere(outcome: Outcome, before: string, after: string): Verdict {
  if (!outcome.branch) return ['no branch was pushed'];
  const count = (branch: Branch, text: string) => branch.files.reduce((total, path) => total + (branch.read(path) ?? '').split(text).length - 1, 0);
  const expected = count(outcome.base, before) + count(outcome.base, after);
  const reasons = nowhere(outcome.branch, before);
  const found = count(outcome.branch, after);
  if (found !== expected) reasons.push(`expected ${expected} occurrences of ${JSON.stringify(after)}, found ${found}`);
  return reasons;
}
