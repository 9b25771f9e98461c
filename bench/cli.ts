/**
 * CLI start-up: `quire --help` and `quire orgs list` (on a SQLite database with one organization)
 * beside `node -e 0`, each run as a user runs them (`node bin/quire.js …`, the entry point `npx quire`
 * reaches). Timed by hyperfine when it is installed, else by spawning each command and timing it here.
 * QUIRE_BENCH_CLI_RUNS sets the runs per command (default 20); the median counts.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { percentile, type BenchSuite, type Report } from './report.ts';

const runs = Number(process.env.QUIRE_BENCH_CLI_RUNS ?? 20);

/** Wall times of `runs` runs of a command, in milliseconds, sorted; it must exit with 0. */
async function spawnTimes(command: string[], env: NodeJS.ProcessEnv): Promise<number[]> {
  const times: number[] = [];
  for (let run = 0; run < runs; run++) {
    const started = performance.now();
    const code = await new Promise<number | null>((resolve, reject) => {
      const child = spawn(command[0]!, command.slice(1), { env, stdio: 'ignore' });
      child.once('error', reject);
      child.once('exit', resolve);
    });
    times.push(performance.now() - started);
    if (code !== 0) throw new Error(`${command.join(' ')} exited with ${code}`);
  }
  return times.sort((a, b) => a - b);
}

/** Median wall times in milliseconds of each command, measured by hyperfine in one run (interleaved by command, after warm-up runs). */
function hyperfineMedians(commands: string[][], env: NodeJS.ProcessEnv, directory: string): { median: number; cpu: number }[] {
  const output = join(directory, 'hyperfine.json');
  const result = spawnSync(
    'hyperfine',
    ['-N', '--warmup', '3', '--runs', String(runs), '--export-json', output, ...commands.map((command) => command.join(' '))],
    {
      env,
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  if (result.status !== 0) throw new Error(`hyperfine exited with ${result.status}`);
  const { results } = JSON.parse(readFileSync(output, 'utf8')) as { results: { median: number; user: number; system: number }[] };
  return results.map((entry) => ({ median: entry.median * 1000, cpu: (entry.user + entry.system) * 1000 }));
}

export const cliBench: BenchSuite = {
  name: 'cli',
  description: `CLI start-up: quire --help and quire orgs list beside node -e 0 (median of ${runs} runs; QUIRE_BENCH_CLI_RUNS)`,
  async run(report: Report) {
    const directory = mkdtempSync(join(tmpdir(), 'quire-bench-cli-'));
    const env = { ...process.env, QUIRE_DATA_DIR: join(directory, 'data') };
    const node = process.execPath;
    const commands = [
      [node, '-e', '0'],
      [node, 'bin/quire.js', '--help'],
      [node, 'bin/quire.js', 'orgs', 'list'],
    ];
    try {
      // The first start creates the database (and Node's compile cache): what a user sees on every later one is timed.
      const created = spawnSync(node, ['bin/quire.js', 'orgs', 'create', '--name', 'Bench'], { env, stdio: 'ignore' });
      if (created.status !== 0) throw new Error(`quire orgs create exited with ${created.status}`);
      const hyperfine = spawnSync('hyperfine', ['--version'], { stdio: 'ignore' }).status === 0;
      if (!hyperfine) process.stdout.write('  hyperfine is not installed (apt-get install hyperfine): timing the spawns here\n');
      let medians: number[];
      if (hyperfine) {
        const results = hyperfineMedians(commands, env, directory);
        medians = results.map((result) => result.median);
        // On a loaded machine the wall time is mostly waiting for a core: the CPU time says what start-up itself costs.
        process.stdout.write(
          `  CPU time (user + system, mean): ${results.map((result, index) => `${commands[index]!.slice(1).join(' ')} ${result.cpu.toFixed(0)} ms`).join(', ')}\n`,
        );
      } else {
        medians = [];
        for (const command of commands) {
          await spawnTimes(command, env); // warm-up
          medians.push(percentile(await spawnTimes(command, env), 0.5));
        }
      }
      const [bare, help, list] = medians as [number, number, number];
      for (const [name, value] of [
        ['quire --help, median', help],
        ['quire orgs list, median (SQLite, one organization)', list],
      ] as const) {
        report.add({ name, value, unit: 'ms', reference: { name: 'node -e 0', value: bare }, target: { text: '≤ 300 ms', met: value <= 300 } });
      }
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  },
};
