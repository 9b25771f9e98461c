/** How benchmarks print: each figure beside its reference, measured in the same run. */
export interface Figure {
  name: string;
  value: number;
  unit: string;
  /** The same thing measured by a reference (bare Fastify, DuckDB, git clone, …) in this run. */
  reference?: { name: string; value: number };
  /** A target from the issues, as text (`≥ 0.5`, `≤ 150 ms`), with whether this run met it. */
  target?: { text: string; met: boolean };
}

export class Report {
  readonly figures: Figure[] = [];

  add(figure: Figure): void {
    this.figures.push(figure);
    const value = `${format(figure.value)} ${figure.unit}`;
    const reference = figure.reference ? `   reference ${figure.reference.name}: ${format(figure.reference.value)} ${figure.unit}` : '';
    const target = figure.target ? `   target ${figure.target.text}: ${figure.target.met ? 'met' : 'NOT met'}` : '';
    process.stdout.write(`  ${figure.name.padEnd(58)} ${value.padStart(16)}${reference}${target}\n`);
  }

  section(title: string): void {
    process.stdout.write(`\n${title}\n`);
  }
}

function format(value: number): string {
  if (Number.isInteger(value)) return value.toLocaleString('en-US');
  return value >= 100 ? Math.round(value).toLocaleString('en-US') : value.toFixed(2);
}

/** A benchmark suite: `npm run bench -- NAME` runs only the named ones. */
export interface BenchSuite {
  name: string;
  description: string;
  run(report: Report): Promise<void>;
}

/** The middle value of `values` (the upper of the two middle ones for an even count); `values` is left as it is. */
export function median(values: number[]): number {
  return percentile(
    values.toSorted((a, b) => a - b),
    0.5,
  );
}

export function percentile(sorted: number[], fraction: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))];
}
