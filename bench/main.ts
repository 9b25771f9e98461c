import { writeFileSync, mkdirSync } from 'node:fs';
import { machineReferences } from './machine.ts';
import { Report } from './report.ts';
import { suites } from './suites.ts';

const wanted = process.argv.slice(2);
const selected = wanted.length ? suites.filter((suite) => wanted.includes(suite.name)) : suites;
if (selected.length === 0) {
  process.stderr.write(`No benchmark named ${wanted.join(', ')}; known: ${suites.map((suite) => suite.name).join(', ')}.\n`);
  process.exit(1);
}

const report = new Report();
process.stdout.write(`Quire benchmarks on Node ${process.versions.node}, ${new Date().toISOString()}\n`);
for (const suite of selected) {
  report.section(`${suite.name}: ${suite.description}`);
  machineReferences(report);
  await suite.run(report);
}
mkdirSync('test-results', { recursive: true });
writeFileSync('test-results/bench.json', JSON.stringify(report.figures, null, 2));
process.stdout.write('\nFigures also written to test-results/bench.json.\n');
