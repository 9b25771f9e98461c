import { agentBench } from './agent.ts';
import { analyticsBench } from './analytics.ts';
import { assistantBench } from './assistant.ts';
import { captureBench } from './capture.ts';
import { classifyBench } from './classify.ts';
import { cliBench } from './cli.ts';
import { docsBench } from './docs.ts';
import { eventsBench } from './events.ts';
import { feedbackBench } from './feedback.ts';
import { gapsBench } from './gaps.ts';
import { jobsBench } from './jobs.ts';
import type { BenchSuite } from './report.ts';
import { scaleBench } from './scale.ts';
import { webhooksBench } from './webhooks.ts';

/** Every benchmark suite, in the order `npm run bench` runs them. */
export const suites: BenchSuite[] = [
  agentBench,
  jobsBench,
  eventsBench,
  webhooksBench,
  scaleBench,
  analyticsBench,
  classifyBench,
  cliBench,
  captureBench,
  feedbackBench,
  gapsBench,
  docsBench,
  assistantBench,
];
