import { Verification } from '../src/analytics/model/verification.ts';
import { MarkdownRequest } from '../src/analytics/model/markdown-request.ts';
import { readFileSync } from 'node:fs';
import { isbot } from 'isbot';
import { aiViewAgent } from '../src/analytics/ingest/agents/agents.ts';
import { countedClass } from '../src/analytics/ingest/classify.ts';
import { CountryDatabase } from '../src/analytics/ingest/dimensions/countries.ts';
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

const addresses = Number(process.env.QUIRE_BENCH_COUNTRY_ADDRESSES ?? 100_000);

/**
 * Microseconds of CPU per country lookup of `addresses` random IPv4 addresses (fewer than the cache holds), each new to the
 * database's cache (as at ingestion: the lookup and the cache's insert), and of the same addresses again.
 */
function countryTimings(): { fresh: number; known: number } {
  let seed = 12345;
  const ips = Array.from({ length: addresses }, () => {
    seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
    return `${seed >>> 24}.${(seed >>> 16) & 255}.${(seed >>> 8) & 255}.${seed & 255}`;
  });
  const database = new CountryDatabase();
  database.country('8.8.8.8'); // loads the table
  const perAddress = () => {
    const started = process.cpuUsage();
    for (const ip of ips) database.country(ip);
    const used = process.cpuUsage(started);
    return (used.user + used.system) / ips.length;
  };
  return { fresh: perAddress(), known: perAddress() };
}

export const classifyBench: BenchSuite = {
  name: 'classify',
  description: `classifying a user agent not seen before (the fixtures' ${fixtures.length} strings, ${rounds} rounds), and the country of a new address`,
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
    const country = countryTimings();
    report.add({
      name: `country of a new IPv4 address, CPU per lookup (${addresses.toLocaleString('en-US')} random addresses)`,
      value: country.fresh,
      unit: 'µs',
      reference: { name: 'the same addresses again (cached)', value: country.known },
      target: { text: '≤ 2 µs', met: country.fresh <= 2 },
    });
  },
};
