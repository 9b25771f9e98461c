import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { availableParallelism, loadavg } from 'node:os';
import { median, type Report } from './report.ts';

/** Milliseconds, the median of `runs`, that `work` takes. */
function timed(runs: number, work: () => void): number {
  const times: number[] = [];
  for (let run = 0; run < runs; run++) {
    const started = performance.now();
    work();
    times.push(performance.now() - started);
  }
  return median(times);
}

const block = Buffer.alloc(1 << 20, 7);

/**
 * How fast this machine is right now, printed before each suite: a Node start (`node -e 0`) and a fixed
 * amount of CPU work on one core (SHA-256 of 64 MiB), with the load average. The same machine was seen
 * to change speed twofold within an hour; a figure read beside these tells a slower machine from slower
 * code.
 */
export function machineReferences(report: Report): void {
  const start = timed(5, () => execFileSync(process.execPath, ['-e', '0']));
  const cpu = timed(3, () => {
    const hash = createHash('sha256');
    for (let index = 0; index < 64; index++) hash.update(block);
    hash.digest();
  });
  const [load] = loadavg();
  report.add({
    name: `machine: node -e 0 (median of 5; load average ${load.toFixed(2)} on ${availableParallelism()} cores)`,
    value: Number(start.toFixed(1)),
    unit: 'ms',
  });
  report.add({ name: 'machine: SHA-256 of 64 MiB on one core (median of 3)', value: Number(cpu.toFixed(1)), unit: 'ms' });
}
