import type { QuestionScore } from './harness.ts';

const share = (part: number, whole: number) => (whole ? `${Math.round((100 * part) / whole)}%` : 'n/a');

/**
 * The assistant eval's table: per question its kind, how the turn was recorded, the pages cited and
 * how many hold the answer (citation precision), whether a follow-up stayed in its thread, and the
 * verdict; then the totals by kind.
 */
export function assistantTable(scores: QuestionScore[], model: string): string {
  const rows = scores.map((score) => [
    score.name,
    score.kind,
    score.resolution,
    String(score.cited.length),
    String(score.precise),
    score.cited.length ? (score.precise / score.cited.length).toFixed(2) : '-',
    score.sameThread === null ? '-' : score.sameThread ? 'yes' : 'NO',
    score.correct ? 'pass' : 'FAIL',
    score.cited.map((path) => path.replace(/^docs\//, '')).join(', ') || '-',
  ]);
  const header = ['question', 'kind', 'recorded', 'cited', 'precise', 'precision', 'thread', 'result', 'cited pages'];
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column].length)));
  const numeric = (column: number) => column >= 3 && column <= 5;
  const line = (cells: string[]) =>
    cells
      .map((cell, column) => (column === cells.length - 1 ? cell : numeric(column) ? cell.padStart(widths[column]) : cell.padEnd(widths[column])))
      .join('  ');
  const of = (kind: QuestionScore['kind']) => scores.filter((score) => score.kind === kind);
  const answering = scores.filter((score) => score.kind !== 'unanswerable');
  const cited = answering.reduce((sum, score) => sum + score.cited.length, 0);
  const precise = answering.reduce((sum, score) => sum + score.precise, 0);
  const passed = (list: QuestionScore[]) => list.filter((score) => score.correct).length;
  const unanswerable = of('unanswerable');
  const followUps = of('follow-up');
  const failures = scores.filter((score) => score.error).map((score) => `  - ${score.name}: ${score.error}`);
  return [
    `Quire docs assistant evaluation, model ${model}, ${scores.length} questions`,
    '',
    line(header),
    line(widths.map((width) => '-'.repeat(width))),
    ...rows.map(line),
    '',
    `Answerable: ${passed(of('answerable'))}/${of('answerable').length} answered citing a page that holds the answer`,
    `Citation precision: ${precise}/${cited} cited pages hold the answer (${share(precise, cited)}), over answerable questions and follow-ups`,
    `Unanswerable: ${passed(unanswerable)}/${unanswerable.length} recorded unanswered`,
    `Follow-ups: ${passed(followUps)}/${followUps.length} handled (answered in their thread, citing a page that holds the answer)`,
    `Total: ${passed(scores)}/${scores.length} passed (${share(passed(scores), scores.length)}), ${scores.reduce((sum, score) => sum + score.seconds, 0).toFixed(1)} s`,
    ...(failures.length ? ['', 'Errors:', ...failures] : []),
  ].join('\n');
}
