import type { TaskScore } from './harness.ts';

/** The score table: one row per task, then the total, then why each failed task failed. */
export function scoreTable(scores: TaskScore[], model: string): string {
  const rows = scores.map((score) => [
    score.task,
    score.framework,
    score.passed ? 'pass' : 'FAIL',
    String(score.steps),
    String(score.tokens),
    score.seconds.toFixed(1),
  ]);
  const header = ['task', 'framework', 'result', 'steps', 'tokens', 'seconds'];
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column].length)));
  const numeric = (column: number) => column >= 3;
  const line = (cells: string[]) => cells.map((cell, column) => (numeric(column) ? cell.padStart(widths[column]) : cell.padEnd(widths[column]))).join('  ');
  const passed = scores.filter((score) => score.passed).length;
  const total = (field: 'steps' | 'tokens' | 'seconds') => scores.reduce((sum, score) => sum + score[field], 0);
  const failures = scores.filter((score) => !score.passed).map((score) => `${score.task}:\n${score.reasons.map((reason) => `  - ${reason}`).join('\n')}`);
  return [
    `Quire evaluation, model ${model}`,
    '',
    line(header),
    line(widths.map((width) => '-'.repeat(width))),
    ...rows.map(line),
    '',
    `Total: ${passed}/${scores.length} passed (${scores.length ? Math.round((100 * passed) / scores.length) : 0}%), ${total('steps')} steps, ${total('tokens')} tokens, ${total('seconds').toFixed(1)} s`,
    ...(failures.length ? ['', 'Failures:', ...failures] : []),
  ].join('\n');
}
