import { Verification } from '../src/analytics/model/verification.ts';
import { MarkdownRequest } from '../src/analytics/model/markdown-request.ts';
import { readFileSync } from 'node:fs';
import { isbot } from 'isbot';
import { aiViewAgent } from '../src/analytics/ingest/agents/agents.ts';
import { countedClass } from '../src/analytics/ingest/classify.ts';
import { percentile, type BenchSuite, type Report } from './report.ts';

const fixtures = ['ai-agents.json', 'bots.json', 'browsers.json'].flatMap((file) =>
  (JSON.parse(readFileSync(new URL(`../test/analytics/fixtures/${file}`, import.meta.url), 'utf8')) as { items: { userAgent: string }[] }).items.map(
    (item) => item.userAgent,
  ),
);
const rounds = Number(process.env.QUIRE_BENCH_CLASSIFY_ROUNDS ?? 20);

/** Microseconds per call of `classify` on user agents it has never seen (each round makes them new). */
function timings(classify: (userAgent: string) => unknown): number[] {
  const samples: number[] = [];
  for (let round = 0; round < rounds; round++) {
    for (const userAgent of fixtures) {
      const fresh = `${userAgent} r${round}`;
      const start = process.hrtime.bigint();
      classify(fresh);
      samples.push(Number(process.hrtime.bigint() - start) / 1000);
    }
  }
  return samples.sort((a, b) => a - b);
}

export const classifyBench: BenchSuite = {
  name: 'classify',
  description: `classifying a user agent not seen before (the fixtures' ${fixtures.length} strings, ${rounds} rounds)`,
  async run(report: Report) {
    timings((userAgent) => countedClass(userAgent, MarkdownRequest.asked, 200, Verification.unknown)); // warm-up: compiles the matcher and the JIT
    const reference = timings(isbot);
    const ours = timings((userAgent) => aiViewAgent(userAgent, countedClass(userAgent, MarkdownRequest.asked, 200, Verification.unknown) !== null));
    const median = percentile(ours, 0.5);
    report.add({
      name: 'classify a new user agent, median',
      value: median,
      unit: 'µs',
      reference: { name: 'isbot alone', value: percentile(reference, 0.5) },
      target: { text: '≤ 20 µs', met: median <= 20 },
    });
    report.add({
      name: 'classify a new user agent, p99',
      value: percentile(ours, 0.99),
      unit: 'µs',
      reference: { name: 'isbot alone', value: percentile(reference, 0.99) },
    });
  },
};
