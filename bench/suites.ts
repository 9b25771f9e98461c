import { agentBench } from './agent.ts';
import { analyticsBench } from './analytics.ts';
import { classifyBench } from './classify.ts';
import { jobsBench } from './jobs.ts';
import type { BenchSuite } from './report.ts';
import { scaleBench } from './scale.ts';

/** Every benchmark suite, in the order `npm run bench` runs them. */
export const suites: BenchSuite[] = [agentBench, jobsBench, scaleBench, analyticsBench, classifyBench];
