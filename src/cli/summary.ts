import type { ImportSummary } from '../analytics/importers/line-parser.ts';

/** A log summary as lines: totals, then each reason for skipping, then each change made to keep a view. */
export function describeSummary(summary: ImportSummary): string {
  const counted = (entries: Record<string, number>, prefix: string) =>
    Object.entries(entries).map(([reason, count]) => `  ${prefix}${count.toLocaleString('en-US')} ${reason}`);
  return [
    `Read ${summary.lines.toLocaleString('en-US')} lines: ${summary.accepted.toLocaleString('en-US')} views accepted, ${summary.skipped.toLocaleString('en-US')} skipped.`,
    ...counted(summary.reasons, ''),
    ...counted(summary.notes, 'kept: '),
  ].join('\n');
}
