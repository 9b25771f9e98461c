import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { serverEnvironment, serverNodeFlags } from '../src/lib/thread-memory.ts';

export interface BenchProcess {
  child: ChildProcess;
  info: { url: string; projectId?: string; projectIds?: string[]; key?: string; jobId?: string };
  /** Largest resident set since the process started, in bytes (its VmHWM). */
  peakRss(): number;
  /** CPU time the process has used so far, all its threads, in seconds (from /proc). */
  cpuSeconds(): number;
  stop(): Promise<void>;
}

/**
 * The CPU times (user plus system) of a /proc/PID/stat line, in seconds: the process's own, all its
 * threads (fields 14 and 15), and its waited-for children's (fields 16 and 17); in ticks of 1/100 s.
 */
export function statCpuSeconds(stat: string): { own: number; children: number } {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { own: (Number(fields[11]) + Number(fields[12])) / 100, children: (Number(fields[13]) + Number(fields[14])) / 100 };
}

/** The resident-set high-water mark of a running process (VmHWM), in bytes; 0 once it has ended. */
function residentPeak(pid: number): number {
  try {
    const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : 0;
  } catch {
    // the process ended
    return 0;
  }
}

/** CPU time a running process has used so far, all its threads, in seconds. */
export function processCpuSeconds(pid: number): number {
  return statCpuSeconds(readFileSync(`/proc/${pid}/stat`, 'utf8')).own;
}

/** CPU time of a running process's main thread (a Node process's event loop) so far, in seconds. */
export function mainThreadCpuSeconds(pid: number): number {
  return statCpuSeconds(readFileSync(`/proc/${pid}/task/${pid}/stat`, 'utf8')).own;
}

/** CPU time of every process named `name` on this machine (such as a local PostgreSQL's server processes), in seconds. */
export function processesCpuSeconds(name: string): number {
  let total = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() === name) total += processCpuSeconds(Number(entry));
    } catch {
      // the process ended while being read
    }
  }
  return total;
}

/**
 * Starts a process that stands for `quire serve` (a bench script that starts Quire's service) with the Node flags
 * and environment every command that starts the server gives it (`serverNodeFlags`, `serverEnvironment`,
 * src/lib/thread-memory.ts); a value of the environment given in `env` or this process's environment wins.
 */
export function startQuireServer(script: string, args: string[], env: Record<string, string>): Promise<BenchProcess> {
  const defaults = Object.entries(serverEnvironment).filter(([name]) => process.env[name] === undefined);
  return startBenchProcess(script, args, { ...Object.fromEntries(defaults), ...env }, serverNodeFlags);
}

/** Starts a benchmark server process with `nodeFlags` and waits for the JSON line it prints when ready. */
export async function startBenchProcess(script: string, args: string[], env: Record<string, string>, nodeFlags: string[] = []): Promise<BenchProcess> {
  // QUIRE_BENCH_CPU_PROF=DIR writes a CPU profile of the process (each of its threads) into DIR when it stops.
  const profile = process.env.QUIRE_BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.QUIRE_BENCH_CPU_PROF}`] : [];
  // QUIRE_BENCH_NODE_FLAGS="--flag …" passes flags to the server's Node (a V8 setting tried without a change to the code).
  const flags = process.env.QUIRE_BENCH_NODE_FLAGS?.split(' ').filter(Boolean) ?? [];
  const child = spawn(process.execPath, [...profile, ...nodeFlags, ...flags, script, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const line = await new Promise<string>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.once('line', resolve);
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code} before it was ready`)));
  });
  // The kernel's high-water mark of the resident set (VmHWM), read every 200 ms and when asked: exact, where sampling
  // VmRSS could miss a peak shorter than its interval. Kept as last read, for a process that has ended.
  let peak = 0;
  const readPeak = () => (peak = Math.max(peak, residentPeak(child.pid!)));
  const sampler = setInterval(readPeak, 200);
  return {
    child,
    info: JSON.parse(line),
    peakRss: readPeak,
    cpuSeconds: () => processCpuSeconds(child.pid!),
    async stop() {
      clearInterval(sampler);
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/**
 * Waits until `process` has been idle for three seconds in a row (under 5% of a core each), so that figures
 * measured next are not sharing the CPU with its background work (index and value-page builds after a load);
 * gives up after `timeoutMs`. One idle second was not enough: the server waits a second of quiet after the
 * last fold before it rebuilds its indexes, so the queries could start beside that rebuild. Answers the
 * seconds waited.
 */
export async function waitUntilIdle(process: Pick<BenchProcess, 'cpuSeconds'>, timeoutMs = 180_000): Promise<{ waited: number }> {
  const started = performance.now();
  let cpu = process.cpuSeconds();
  let idleSeconds = 0;
  while (performance.now() - started < timeoutMs) {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const now = process.cpuSeconds();
    const used = now - cpu;
    cpu = now;
    idleSeconds = used < 0.05 ? idleSeconds + 1 : 0;
    if (idleSeconds === 3) break;
  }
  return { waited: (performance.now() - started) / 1000 };
}
