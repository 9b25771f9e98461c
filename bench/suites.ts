import { jobsBench } from './jobs.ts';
import type { BenchSuite } from './report.ts';

/** Every benchmark suite, in the order `npm run bench` runs them. */
export const suites: BenchSuite[] = [
  jobsBench,
];
