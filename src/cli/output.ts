/** How CLI verbs print: one JSON document with --json, readable lines otherwise. */
export interface OutputOptions {
  json?: boolean;
}

export function print(options: OutputOptions, value: unknown, human: () => string): void {
  process.stdout.write(options.json ? `${JSON.stringify(value, null, 2)}\n` : `${human()}\n`);
}

/** Fixed-width columns for listings. */
export function table(rows: Record<string, unknown>[], columns: string[]): string {
  if (rows.length === 0) return '(none)';
  const cell = (value: unknown) => (value === null || value === undefined ? '-' : Array.isArray(value) ? value.join(',') : String(value));
  const widths = columns.map((column) => Math.max(column.length, ...rows.map((row) => cell(row[column]).length)));
  const line = (values: string[]) =>
    values
      .map((value, index) => value.padEnd(widths[index]))
      .join('  ')
      .trimEnd();
  return [line(columns), ...rows.map((row) => line(columns.map((column) => cell(row[column]))))].join('\n');
}

/** A failure the user can fix: printed as one sentence, exit code 1. */
export class CliError extends Error {}
