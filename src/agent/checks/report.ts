import type { Problem } from '../../sites/site.ts';
import type { CheckReport } from './types.ts';

/** Problems listed in one message are capped, so a change that broke everything still fits the model's context. */
const maxListed = 50;

export function problemLine(problem: Problem): string {
  return `${problem.file}${problem.line ? `:${problem.line}` : ''}: ${problem.message}`;
}

function listed(problems: Problem[], format: (problem: Problem) => string): string {
  const lines = problems.slice(0, maxListed).map((problem) => `- ${format(problem)}`);
  if (problems.length > maxListed) lines.push(`- … and ${problems.length - maxListed} more`);
  return lines.join('\n');
}

/** The one message that hands the problems back to the model for a repair round. */
export function repairRequest(report: CheckReport): string {
  const count = report.problems.length;
  return `Quire checked your change before committing it, as the docs build would, and found ${count} ${count === 1 ? 'problem' : 'problems'}:

${listed(report.problems, problemLine)}

Fix each of them with the tools (read the file again before editing it), then answer with your summary again: a short title line, a blank line, and the files you changed.`;
}

/**
 * The `## Checks` section every pull request body ends with: what was checked and passed, or the
 * problems that remain after the repair rounds (the pull request is then a draft).
 */
export function checksSection(report: CheckReport, repairRounds: number): string {
  const checked = report.checked.length > 0 ? report.checked : ['No pages or configuration files changed'];
  const skipped = report.skipped.length > 0 ? `\n\nNot checked:\n\n${report.skipped.map((line) => `- ${line}`).join('\n')}` : '';
  if (report.problems.length === 0) {
    return `## Checks\n\nQuire checked the change before committing it; everything passed:\n\n${checked.map((line) => `- ${line}`).join('\n')}${skipped}`;
  }
  const count = report.problems.length;
  const rounds = repairRounds === 1 ? '1 repair round' : `${repairRounds} repair rounds`;
  return `## Checks

**${count} ${count === 1 ? 'problem remains' : 'problems remain'}** after ${rounds}, so this pull request is a draft:

${listed(report.problems, (problem) => `\`${problem.file}\`${problem.line ? ` line ${problem.line}` : ''}: ${problem.message}`)}

Checked: ${checked.join('; ')}.${skipped}`;
}
