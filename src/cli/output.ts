/** How CLI verbs print: one JSON document with --json, readable lines otherwise. */
export interface OutputOptions {
  json?: boolean;
}

export function print(options: OutputOptions, value: unknown, human: () => string): void {
  process.stdout.write(options.json ? `${JSON.stringify(value, null, 2)}\n` : `${human()}\n`);
}

/** Fixed-width columns for listings, control characters shown as U+FFFD. */
export function table(rows: Record<string, unknown>[], columns: string[]): string {
  if (rows.length === 0) return '(none)';
  // Values come from the database, where a key holder may have put anything: no control character (a terminal
  // escape that retitles the window or clears the screen, a line break that forges a row) reaches the terminal.
  const cell = (value: unknown) =>
    (value === null || value === undefined ? '-' : Array.isArray(value) ? value.join(',') : String(value)).replace(/\p{Cc}/gu, '\uFFFD');
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
