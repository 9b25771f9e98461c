/**
 * The docs assistant's streaming overhead, on a running Quire over HTTP with the Temporal docs indexed: a
 * scripted model that answers at once (a search_docs call, then text), time to the first byte of the answer and
 * to its first text, p50 and p99, one conversation at a time and 20 at once, beside the same model called directly
 * and beside a bare AI SDK `streamText` pass-through of it, measured in the same run.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { updateProject, waitForBuild, type DocsServer } from './docs-client.ts';
import { qualityCorpus } from './docs-corpus.ts';
import { temporalRepository, type BenchRepository } from './docs-repositories.ts';
import { benchDatabaseNames, freshDatabase, type BenchDatabase } from './databases.ts';
import { type BenchProcess, processesCpuSeconds, startBenchProcess, startQuireServer } from './processes.ts';
import { percentile, type BenchSuite, type Report } from './report.ts';

const sequential = Number(process.env.QUIRE_BENCH_ASSISTANT_REQUESTS ?? '200');
const concurrentSeconds = Number(process.env.QUIRE_BENCH_SECONDS ?? '6');
/** Turns each target takes at 20 at once, alternating with the others (QUIRE_BENCH_ASSISTANT_TURNS). */
const concurrentTurns = Math.max(1, Number(process.env.QUIRE_BENCH_ASSISTANT_TURNS ?? '3'));
const concurrency = 20;
/** How every answer's text begins, whichever way it is streamed (assistant-model-server.ts). */
const firstText = 'Answer: ';

interface Timing {
  firstByte: number;
  firstText: number;
}

/** One streamed answer: milliseconds to its first body byte and to the chunk that holds its first text. */
async function timed(url: string, init: RequestInit): Promise<Timing> {
  const started = performance.now();
  const response = await fetch(url, init);
  if (!response.ok) throw new Error(`${url} answered ${response.status}: ${(await response.text()).slice(0, 300)}`);
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let firstByte = 0;
  let firstTextAt = 0;
  let seen = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    const now = performance.now() - started;
    if (!firstByte) firstByte = now;
    if (!firstTextAt) {
      seen += decoder.decode(value, { stream: true });
      if (seen.includes(firstText)) firstTextAt = now;
    }
  }
  if (!firstTextAt) throw new Error(`${url} streamed no text beginning "${firstText}": ${seen.slice(0, 300)}`);
  return { firstByte, firstText: firstTextAt };
}

interface Target {
  name: string;
  ask(round: number): Promise<Timing>;
  /** CPU time of the process that answers, so far, in seconds (all its threads). */
  cpuSeconds(): number;
}

const question = (round: number) => `How does a Workflow Execution recover after a crash? (${round})`;
const json = (body: unknown, headers: Record<string, string> = {}): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json', ...headers },
  body: JSON.stringify(body),
});

function targets(model: BenchProcess, passthrough: BenchProcess, quireProcess: BenchProcess): Target[] {
  const quire = quireProcess.info as DocsServer;
  // The model's answering step, called directly: the conversation with the search's result, as Quire's second call sends it.
  const direct = (round: number) => ({
    model: 'bench-model',
    stream: true,
    messages: [
      { role: 'user', content: question(round) },
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'search_docs', arguments: '{"query":"crash"}' } }] },
      { role: 'tool', tool_call_id: 'call_1', content: 'A Workflow Execution is durable.' },
    ],
  });
  const message = (round: number) => ({ fp: `bench-${round}`, messages: [{ role: 'user', parts: [{ type: 'text', text: question(round) }] }] });
  return [
    {
      name: 'the model called directly (its answering step)',
      ask: (round) => timed(`${model.info.url}/chat/completions`, json(direct(round))),
      cpuSeconds: model.cpuSeconds,
    },
    {
      name: 'bare AI SDK streamText pass-through',
      ask: (round) => timed(passthrough.info.url, json({ messages: message(round).messages })),
      cpuSeconds: passthrough.cpuSeconds,
    },
    {
      name: 'Quire',
      ask: (round) => timed(`${quire.url}/discovery/v2/assistant/${quire.projectId}/message`, json(message(round), { authorization: `Bearer ${quire.key}` })),
      cpuSeconds: quireProcess.cpuSeconds,
    },
  ];
}

async function oneAtATime(target: Target, count: number): Promise<Timing[]> {
  const timings: Timing[] = [];
  for (let round = 0; round < count; round++) timings.push(await target.ask(round));
  return timings;
}

async function atOnce(target: Target, clients: number, seconds: number, firstRound: number): Promise<Timing[]> {
  const timings: Timing[] = [];
  const until = performance.now() + seconds * 1000;
  // Questions of their own, numbered past the one-at-a-time rounds and every earlier turn: none is answered from the search cache.
  let round = firstRound;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (performance.now() < until) timings.push(await target.ask(round++));
    }),
  );
  return timings;
}

const quantile = (timings: Timing[], measure: keyof Timing, fraction: number) =>
  Number(
    percentile(
      timings.map((timing) => timing[measure]).sort((a, b) => a - b),
      fraction,
    ).toFixed(2),
  );

function figures(report: Report, prefix: string, label: string, measured: Map<string, Timing[]>, concurrent: boolean): void {
  const [direct, passthrough, quire] = [...measured.values()];
  for (const measure of ['firstByte', 'firstText'] as const) {
    for (const [fraction, name] of [
      [0.5, 'p50'],
      [0.99, 'p99'],
    ] as const) {
      const what = measure === 'firstByte' ? 'first byte' : 'first text';
      const value = quantile(quire, measure, fraction);
      const bare = quantile(passthrough, measure, fraction);
      report.add({ name: `${prefix} ${label}: ${what} ${name}, the model directly`, value: quantile(direct, measure, fraction), unit: 'ms' });
      const target =
        name !== 'p50' || measure !== 'firstText'
          ? undefined
          : concurrent
            ? { text: `≤ 1.5× the pass-through (${(bare * 1.5).toFixed(1)} ms)`, met: value <= bare * 1.5 }
            : { text: `added ≤ 50 ms (${(value - bare).toFixed(1)} ms)`, met: value - bare <= 50 };
      report.add({
        name: `${prefix} ${label}: ${what} ${name}, Quire`,
        value,
        unit: 'ms',
        reference: { name: 'bare AI SDK pass-through', value: bare },
        target,
      });
    }
  }
}

async function runOn(report: Report, name: 'sqlite' | 'postgres', folder: string, repository: BenchRepository, model: BenchProcess): Promise<void> {
  const database = await freshDatabase(name);
  // A pass-through of its own per database, as Quire is: shared, it came to the second database's phase warmed by the
  // first's hundreds of answers while Quire started anew, and its CPU per answer there was about a third lower.
  const passthrough = await startBenchProcess('bench/assistant-passthrough-server.ts', [], { OPENAI_BASE_URL: model.info.url });
  try {
    await measureOn(report, name, folder, repository, model, passthrough, database);
  } finally {
    await passthrough.stop();
    await database.drop();
  }
}

/** runOn's measurements, with the database and the pass-through it started. */
async function measureOn(
  report: Report,
  name: 'sqlite' | 'postgres',
  folder: string,
  repository: BenchRepository,
  model: BenchProcess,
  passthrough: BenchProcess,
  database: BenchDatabase,
): Promise<void> {
  const quire = await startQuireServer('bench/assistant-server.ts', [], {
    ...database.env,
    QUIRE_BENCH_REPOSITORIES: folder,
    QUIRE_MODEL: 'openai-compatible:bench-model',
    OPENAI_BASE_URL: model.info.url,
  });
  try {
    const server = quire.info as DocsServer;
    const started = performance.now();
    await updateProject(server, { repository: repository.path, ref: 'main' });
    const commit = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: repository.work, encoding: 'utf8' }).trim();
    const built = await waitForBuild(server, commit, started);
    const prefix = `${name}:`;
    report.add({ name: `${prefix} Temporal docs indexed for the assistant (${built.pages} pages)`, value: Number(built.seconds.toFixed(2)), unit: 's' });
    const all = targets(model, passthrough, quire);
    for (const target of all) await oneAtATime(target, 10); // warm-up
    const single = new Map<string, Timing[]>();
    for (const target of all) single.set(target.name, await oneAtATime(target, sequential));
    figures(report, prefix, `1 at a time (${sequential} each)`, single, false);
    const concurrent = new Map<string, Timing[]>();
    // CPU per answer of the process that answers: unlike wall-clock times, it holds on a machine busy with other work.
    const cpu = new Map<string, number>();
    /** PostgreSQL's own processes, per answer of Quire's phase: the database's share of an answer, beside Quire's process. */
    let databaseCpu: number | null = null;
    // The targets take turns, each several times: the machine's pace drifts (other guests of the host), and a
    // drift during one target's only turn once moved the reference's CPU per answer by half.
    const cpuSeconds = new Map<string, number>();
    let databaseSeconds = 0;
    for (let turn = 0; turn < concurrentTurns; turn++) {
      for (const target of all) {
        const before = target.cpuSeconds();
        const databaseBefore = name === 'postgres' ? processesCpuSeconds('postgres') : 0;
        const timings = await atOnce(target, concurrency, concurrentSeconds / concurrentTurns, 1_000_000 * (turn + 1));
        concurrent.set(target.name, [...(concurrent.get(target.name) ?? []), ...timings]);
        cpuSeconds.set(target.name, (cpuSeconds.get(target.name) ?? 0) + target.cpuSeconds() - before);
        if (name === 'postgres' && target.name === 'Quire') databaseSeconds += processesCpuSeconds('postgres') - databaseBefore;
      }
    }
    for (const target of all) cpu.set(target.name, (cpuSeconds.get(target.name)! * 1000) / concurrent.get(target.name)!.length);
    if (name === 'postgres') databaseCpu = (databaseSeconds * 1000) / concurrent.get('Quire')!.length;
    const counts = [...concurrent.values()].map((timings) => timings.length).join('/');
    const label = `${concurrency} at once (${concurrentSeconds} s in ${concurrentTurns} turns each, ${counts} answers)`;
    figures(report, prefix, label, concurrent, true);
    const [, bare, ours] = [...cpu.values()];
    report.add({
      name: `${prefix} ${label}: CPU time per answer, Quire's process`,
      value: Number(ours.toFixed(2)),
      unit: 'ms',
      reference: { name: 'the pass-through’s process', value: Number(bare.toFixed(2)) },
    });
    if (databaseCpu !== null) {
      report.add({ name: `${prefix} ${label}: CPU time per answer, PostgreSQL's processes`, value: Number(databaseCpu.toFixed(2)), unit: 'ms' });
    }
  } finally {
    await quire.stop();
  }
}

export const assistantBench: BenchSuite = {
  name: 'assistant',
  description: `the docs assistant's streaming overhead with a scripted model that answers at once: time to first byte and first text, p50 and p99, 1 at a time and ${concurrency} at once, beside the model called directly and a bare AI SDK streamText pass-through (QUIRE_BENCH_ASSISTANT_REQUESTS, QUIRE_BENCH_SECONDS, QUIRE_BENCH_ASSISTANT_TURNS)`,
  async run(report) {
    const folder = mkdtempSync(join(tmpdir(), 'quire-bench-assistant-'));
    const model = await startBenchProcess('bench/assistant-model-server.ts', [], {});
    try {
      const databases = await benchDatabaseNames();
      const repository = temporalRepository(folder, qualityCorpus().pages);
      for (const name of databases) await runOn(report, name, folder, repository, model);
    } finally {
      await model.stop();
      rmSync(folder, { recursive: true, force: true });
    }
  },
};
