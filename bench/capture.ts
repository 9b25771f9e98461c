/**
 * Server-side capture: the log importer beside GoAccess on the same combined log; `quire proxy` beside
 * nginx proxying the same static upstream (where nginx is installed), a bare Node forwarder (the most a
 * proxy on Node reaches here) and direct access; and what a large drain batch costs the API's other
 * requests. QUIRE_BENCH_CAPTURE=importer, proxy or drains runs one part; QUIRE_BENCH_SCALE scales the log
 * (500,000 lines at 1), QUIRE_BENCH_SECONDS the load runs, QUIRE_BENCH_ROUNDS the turns each comparison
 * takes (3).
 */
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { closeSync, createWriteStream, mkdtempSync, openSync, readSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import autocannon from 'autocannon';
import { request as undiciRequest } from 'undici';
import { combinedLine, datasetShape, generateViews } from './analytics-data.ts';
import { type BenchProcess, processCpuSeconds, startBenchProcess, startQuireServer, statCpuSeconds } from './processes.ts';
import { median, percentile, type BenchSuite, type Report } from './report.ts';

const scale = Number(process.env.QUIRE_BENCH_SCALE ?? '1');
const seconds = Number(process.env.QUIRE_BENCH_SECONDS ?? 10);
const part = process.env.QUIRE_BENCH_CAPTURE;
const logLines = Math.max(1000, Math.round(500_000 * scale));
/** Lines of the short log (an hour's traffic of a busy site), whose import time is mostly start-up. */
const shortLines = Math.min(10_000, logLines);
/**
 * Rounds of each comparison (QUIRE_BENCH_ROUNDS): Quire and its reference take turns, and each figure is
 * the median of its rounds. On a shared two-core machine one run of either can be a third off its usual
 * rate; taking turns keeps both under the same conditions, the median keeps one odd round out.
 */
const rounds = Math.max(1, Number(process.env.QUIRE_BENCH_ROUNDS ?? 3));

async function writeLog(file: string): Promise<void> {
  const out = createWriteStream(file);
  for (const view of generateViews({ ...datasetShape(Math.min(1, scale)), views: logLines })) {
    if (!out.write(`${combinedLine(view)}\n`)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
  }
  await new Promise<void>((resolve) => out.end(() => resolve()));
}

/**
 * Runs a command; answers its wall time and the CPU time it used (user and system, all its threads),
 * in seconds. The CPU time is read from a shell's /proc entry after it waited for the command: the
 * fields for its waited-for children (cutime, cstime).
 */
async function timed(command: string, args: string[], env: Record<string, string> = {}): Promise<{ seconds: number; cpuSeconds: number }> {
  const started = performance.now();
  const child = spawn('sh', ['-c', '"$@" >/dev/null 2>&1 || exit $?; cat /proc/$$/stat', 'timed', command, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  let stat = '';
  child.stdout.on('data', (chunk: Buffer) => (stat += chunk.toString()));
  const code = await new Promise((resolve) => child.once('exit', resolve));
  const seconds = (performance.now() - started) / 1000;
  if (code !== 0) throw new Error(`${command} ${args.join(' ')} exited with ${code}`);
  return { seconds, cpuSeconds: statCpuSeconds(stat).children };
}

/** A fresh SQLite directory with a tenant (created by the analytics bench server's first start). */
async function freshTenant(): Promise<{ dataDir: string; projectId: string }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'quire-bench-capture-'));
  const server = await startQuireServer('bench/analytics-server.ts', [], { QUIRE_DATA_DIR: dataDir });
  await server.stop();
  return { dataDir, projectId: server.info.projectId! };
}

/**
 * One import of `file` into a fresh tenant, after a first import of `warmUp` into another project, as a
 * user's first run (Node's compile cache then holds the importer's modules, as it does for every run after
 * the first), with GoAccess and the reference importer (bench/import-reference.ts, unless
 * `withReferenceImporter` is false) reading the same file just before: wall and CPU time of each.
 */
async function importRound(file: string, warmUp: string, goaccess: boolean, withReferenceImporter = true) {
  const { dataDir, projectId } = await freshTenant();
  try {
    const env = { QUIRE_DATA_DIR: dataDir, LOG_LEVEL: 'silent' };
    const other = spawnSync(process.execPath, ['bin/quire.js', 'projects', 'create', '--name', 'Warm-up', '--json'], {
      env: { ...process.env, ...env },
      encoding: 'utf8',
    });
    if (other.status !== 0) throw new Error(`quire projects create exited with ${other.status}: ${other.stderr}`);
    await timed(
      process.execPath,
      ['bin/quire.js', 'analytics', 'import', '--project', (JSON.parse(other.stdout) as { id: string }).id, '--format', 'combined', warmUp],
      env,
    );
    // GoAccess parses and aggregates without writing a report: the same work of reading the log.
    const reference = goaccess ? await timed('goaccess', ['--log-format=COMBINED', '--process-and-exit', '--no-progress', file]) : undefined;
    const bare = withReferenceImporter ? await timed(process.execPath, ['bench/import-reference.ts', file, join(dataDir, 'reference.db')]) : undefined;
    const run = await timed(process.execPath, ['bin/quire.js', 'analytics', 'import', '--project', projectId, '--format', 'combined', file, '--json'], env);
    return { run, reference, bare };
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Writes the first `count` lines of the log `from` (lines of at most 400 bytes) to `to`. */
function writeFirstLines(from: string, to: string, count: number): void {
  const head = Buffer.alloc(count * 400);
  const descriptor = openSync(from, 'r');
  const bytes = readSync(descriptor, head, 0, head.length, 0);
  closeSync(descriptor);
  writeFileSync(to, `${head.subarray(0, bytes).toString('utf8').split('\n', count).join('\n')}\n`);
}

async function importer(report: Report): Promise<void> {
  const directory = mkdtempSync(join(tmpdir(), 'quire-bench-log-'));
  const file = join(directory, 'access.log');
  await writeLog(file);
  const warmUp = join(directory, 'warm-up.log');
  writeFirstLines(file, warmUp, 1000);
  const goaccess = spawnSync('goaccess', ['--version'], { stdio: 'ignore' }).status === 0;
  if (!goaccess) process.stdout.write('  goaccess is not installed (apt-get install goaccess): the importer figure has no reference in this run\n');
  // CPU per line, every thread counted: on this machine's cores, that bounds lines per second whatever the parallelism.
  const perLine = (cpuSeconds: number) => `${((cpuSeconds * 1e6) / logLines).toFixed(1)} µs`;
  const rate = (seconds: number) => logLines / seconds;
  const quire: number[] = [];
  const reference: number[] = [];
  const bare: number[] = [];
  for (let round = 1; round <= rounds; round++) {
    const result = await importRound(file, warmUp, goaccess);
    const referenceRun = result.bare!;
    quire.push(rate(result.run.seconds));
    bare.push(rate(referenceRun.seconds));
    if (result.reference) reference.push(rate(result.reference.seconds));
    process.stdout.write(
      `  round ${round} of ${rounds}: quire ${Math.round(rate(result.run.seconds)).toLocaleString('en-US')} lines/s, ${perLine(result.run.cpuSeconds)} of CPU a line (reading and storing threads)` +
        `; reference importer ${Math.round(rate(referenceRun.seconds)).toLocaleString('en-US')} lines/s, ${perLine(referenceRun.cpuSeconds)}` +
        (result.reference
          ? `; GoAccess ${Math.round(rate(result.reference.seconds)).toLocaleString('en-US')} lines/s, ${perLine(result.reference.cpuSeconds)}; ` +
            `${(result.reference.seconds / result.run.seconds).toFixed(2)}× GoAccess (2× on ${availableParallelism()} cores needs at most ${perLine((result.reference.seconds * availableParallelism()) / 2)} a line)`
          : '') +
        '\n',
    );
  }
  // A short log, as a cron job imports an hour's lines: start-up is most of its time.
  const short = join(directory, 'short.log');
  writeFirstLines(file, short, shortLines);
  const shortRounds: Awaited<ReturnType<typeof importRound>>[] = [];
  for (let round = 1; round <= rounds; round++) shortRounds.push(await importRound(short, warmUp, goaccess, false));
  rmSync(directory, { recursive: true, force: true });
  const milliseconds = (pick: (result: (typeof shortRounds)[number]) => { seconds: number } | undefined) =>
    median(shortRounds.map((result) => pick(result)!.seconds * 1000));
  report.add({
    name: `log import of ${shortLines.toLocaleString('en-US')} combined lines, start-up included, median of ${rounds}`,
    value: milliseconds((result) => result.run),
    unit: 'ms',
    reference: goaccess ? { name: 'GoAccess on the same file', value: milliseconds((result) => result.reference) } : undefined,
  });
  const value = median(quire);
  const goaccessRate = reference.length > 0 ? median(reference) : undefined;
  report.add({
    name: `log import, ${logLines.toLocaleString('en-US')} combined lines, stored (SQLite), median of ${rounds}`,
    value,
    unit: 'lines/s',
    reference: goaccessRate ? { name: `GoAccess --process-and-exit, median of ${rounds}`, value: goaccessRate } : undefined,
    target: goaccessRate ? { text: '≥ 2× GoAccess', met: value >= 2 * goaccessRate } : undefined,
  });
  // bench/import-reference.ts: what storing every line durably costs the least Node importer, beside the same GoAccess runs.
  report.add({
    name: `reference importer (Node, one regular expression and one SQLite row a line, durable), median of ${rounds}`,
    value: median(bare),
    unit: 'lines/s',
    reference: goaccessRate ? { name: `GoAccess, median of ${rounds}`, value: goaccessRate } : undefined,
  });
  report.add({ name: 'quire analytics import against the reference importer', value: value / median(bare), unit: '×' });
}

/**
 * Times of sequential GETs of `url` on one kept-alive connection, sorted, in milliseconds (autocannon
 * rounds to whole ones): at least `minimum` of them, and on until `done` says stop.
 */
async function sequentialLatencies(url: string, minimum: number, done: () => boolean = () => true): Promise<number[]> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const times: number[] = [];
  while (times.length < minimum || !done()) {
    const started = performance.now();
    await new Promise<void>((resolve, reject) =>
      request(url, { agent }, (response) => {
        response.resume();
        response.on('end', resolve);
      })
        .on('error', reject)
        .end(),
    );
    times.push(performance.now() - started);
  }
  agent.destroy();
  return times.sort((a, b) => a - b);
}

/**
 * Throughput with 10 connections (autocannon, after a second's warm-up) and the CPU time each process
 * spent per request under that load, in microseconds: the load generator (this process) and each of `processes`.
 */
async function load(url: string, processes: Pick<BenchProcess, 'cpuSeconds'>[]) {
  await autocannon({ url, connections: 10, duration: 1 });
  const before = { own: process.cpuUsage(), others: processes.map((each) => each.cpuSeconds()) };
  const result = await autocannon({ url, connections: 10, duration: seconds });
  const own = process.cpuUsage(before.own);
  const requests = result.requests.total;
  const cpu = {
    loadGenerator: (own.user + own.system) / requests,
    processes: processes.map((each, index) => ((each.cpuSeconds() - before.others[index]!) * 1e6) / requests),
  };
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${url}: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
  return { throughput: result.requests.average, cpu };
}

/** The median latency of one connection's requests to `url` (what a request costs unsaturated), in milliseconds. */
const medianLatency = async (url: string) => percentile(await sequentialLatencies(url, 3000), 0.5);

const microseconds = (value: number) => `${value.toFixed(0)} µs`;

/** A port nothing listens on now (the kernel's pick for a listener that is closed at once). */
async function freePort(): Promise<number> {
  const server = createNetServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * nginx as the reference proxy, when it is installed: one process (no master) forwarding to the
 * upstream over kept-alive connections and writing the combined access log through a buffer, the
 * usual production set-up and the same work as `quire proxy` (forward, record). Answers its URL, its
 * CPU time so far and a stop function, or undefined without nginx.
 */
async function startNginx(upstreamUrl: string, directory: string) {
  if (spawnSync('nginx', ['-v'], { stdio: 'ignore' }).status !== 0) return undefined;
  const port = await freePort();
  const config = join(directory, 'nginx.conf');
  writeFileSync(
    config,
    `daemon off; master_process off; worker_processes 1; pid ${directory}/nginx.pid; error_log ${directory}/nginx-error.log warn;
events { worker_connections 1024; }
http {
  access_log ${directory}/nginx-access.log combined buffer=64k flush=1s;
  client_body_temp_path ${directory}; proxy_temp_path ${directory}; fastcgi_temp_path ${directory}; uwsgi_temp_path ${directory}; scgi_temp_path ${directory};
  upstream site { server ${new URL(upstreamUrl).host}; keepalive 32; }
  server {
    listen 127.0.0.1:${port};
    keepalive_requests 1000000;
    location / { proxy_pass http://site; proxy_http_version 1.1; proxy_set_header Connection ""; proxy_set_header X-Forwarded-For $remote_addr; }
  }
}
`,
  );
  const child = spawn('nginx', ['-c', config, '-p', directory], { stdio: ['ignore', 'ignore', 'inherit'] });
  const url = `http://127.0.0.1:${port}`;
  const answers = () =>
    new Promise<boolean>((resolve) =>
      request(url, (answer) => {
        answer.resume();
        resolve(true);
      })
        .on('error', () => resolve(false))
        .end(),
    );
  for (let tries = 0; !(await answers()); tries++) {
    if (tries === 50 || child.exitCode !== null) {
      child.kill();
      throw new Error(`nginx did not start on ${url}: see ${directory}/nginx-error.log`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    url,
    cpuSeconds: () => processCpuSeconds(child.pid!),
    async stop() {
      if (child.exitCode !== null) return;
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await exited;
    },
  };
}

async function proxy(report: Report): Promise<void> {
  const { dataDir, projectId } = await freshTenant();
  const upstream = await startBenchProcess('bench/capture-server.ts', ['upstream'], {});
  const proxied = await startBenchProcess('bench/capture-server.ts', ['proxy'], {
    QUIRE_DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    PROJECT_ID: projectId,
    UPSTREAM_URL: upstream.info.url,
  });
  const bare = await startBenchProcess('bench/capture-server.ts', ['bare'], { UPSTREAM_URL: upstream.info.url });
  const nginx = await startNginx(upstream.info.url, dataDir);
  if (!nginx) process.stdout.write('  nginx is not installed (apt-get install nginx-light): the proxy figure has no reference proxy in this run\n');
  try {
    // Each round loads every target in turn; each figure is the median of its rounds.
    const targets = {
      direct: { url: upstream.info.url, processes: [upstream] },
      quire: { url: proxied.info.url, processes: [upstream, proxied] },
      bare: { url: bare.info.url, processes: [upstream, bare] },
      ...(nginx && { nginx: { url: nginx.url, processes: [upstream, nginx] } }),
    };
    type Load = Awaited<ReturnType<typeof load>>;
    const loads: Record<string, Load[]> = {};
    for (let round = 1; round <= rounds; round++) {
      for (const [name, target] of Object.entries(targets)) (loads[name] ??= []).push(await load(target.url, target.processes));
      const last = (name: string) => loads[name]!.at(-1)!.throughput;
      process.stdout.write(
        `  round ${round} of ${rounds}: direct ${Math.round(last('direct')).toLocaleString('en-US')}, quire proxy ${Math.round(last('quire')).toLocaleString('en-US')}, ` +
          `bare Node forwarder ${Math.round(last('bare')).toLocaleString('en-US')}` +
          (nginx
            ? `, nginx ${Math.round(last('nginx')).toLocaleString('en-US')} requests/s: quire ${(last('quire') / last('nginx')).toFixed(2)}× nginx, bare ${(last('bare') / last('nginx')).toFixed(2)}×`
            : ' requests/s') +
          '\n',
      );
    }
    const throughput = (name: string) => median(loads[name]!.map((each) => each.throughput));
    /** The median CPU per request of process `index` of a target (-1: the load generator). */
    const cpu = (name: string, index: number) => median(loads[name]!.map((each) => (index < 0 ? each.cpu.loadGenerator : each.cpu.processes[index]!)));
    const [direct, through, bareThroughput] = [throughput('direct'), throughput('quire'), throughput('bare')];
    const reference = nginx ? throughput('nginx') : undefined;
    // Every process here shares the machine's cores: the CPU each spends per request bounds the
    // throughput any proxy can reach beside them, whatever it does.
    const [loadGenerator, upstreamCpu, proxyCpu] = [cpu('quire', -1), cpu('quire', 0), cpu('quire', 1)];
    const cores = availableParallelism();
    process.stdout.write(
      `  CPU per request through the proxy (medians): load generator ${microseconds(loadGenerator)}, upstream ${microseconds(upstreamCpu)}, ` +
        `proxy ${microseconds(proxyCpu)} (its recording thread included); bare Node forwarder ${microseconds(cpu('bare', 1))}; direct: ${microseconds(cpu('direct', -1) + cpu('direct', 0))} in all.\n` +
        `  On ${cores} cores these allow at most ${Math.round((cores * 1e6) / (loadGenerator + upstreamCpu + proxyCpu)).toLocaleString('en-US')} requests/s through the proxy; ` +
        (reference
          ? `0.8× nginx would need the proxy at ${microseconds(Math.max(0, (cores * 1e6) / (0.8 * reference) - loadGenerator - upstreamCpu))} or less with every core busy.\n` +
            `  nginx in the same place: ${microseconds(cpu('nginx', 1))} per request, ${(reference / direct).toFixed(2)}× direct; quire proxy ${(through / reference).toFixed(2)}× nginx; ` +
            `the bare Node forwarder ${(bareThroughput / reference).toFixed(2)}× nginx.\n`
          : '\n'),
    );
    // The reference is nginx doing the same job (forward, log each request): on two cores, what any proxy
    // reaches beside the upstream and the load generator. Without nginx, direct access is shown, with no target.
    report.add({
      name: `quire proxy throughput, 10 connections, each request recorded, median of ${rounds}`,
      value: through,
      unit: 'requests/s',
      reference: reference
        ? { name: 'nginx proxying the same upstream, each request logged', value: reference }
        : { name: 'direct to the upstream', value: direct },
      target: reference ? { text: '≥ 0.8× nginx', met: through >= 0.8 * reference } : undefined,
    });
    if (reference) {
      report.add({
        name: 'nginx proxy throughput, 10 connections, each request logged (the reference proxy)',
        value: reference,
        unit: 'requests/s',
        reference: { name: 'direct to the upstream', value: direct },
      });
    }
    // What Node's HTTP server and undici alone reach here: no proxy on Node, recording or not, goes faster.
    report.add({
      name: 'bare Node forwarder throughput (Node HTTP server + undici, nothing recorded): the most a proxy on Node reaches',
      value: bareThroughput,
      unit: 'requests/s',
      reference: reference ? { name: 'nginx', value: reference } : { name: 'direct to the upstream', value: direct },
    });
    // The medians' ratio: what the proxy's recording and checks cost beside Node's own forwarding, whatever the day.
    report.add({ name: 'quire proxy against the bare Node forwarder', value: through / bareThroughput, unit: '×' });
    const [directP50, throughP50] = [await medianLatency(upstream.info.url), await medianLatency(proxied.info.url)];
    report.add({
      name: 'quire proxy added p50 latency, one connection',
      value: throughP50 - directP50,
      unit: 'ms',
      reference: { name: 'direct p50', value: directP50 },
      target: { text: '≤ 1 ms', met: throughP50 - directP50 <= 1 },
    });
  } finally {
    await nginx?.stop();
    await bare.stop();
    await proxied.stop();
    await upstream.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** A Cloudflare Logpush batch (gzip NDJSON of `http_requests`) of `count` page views from the last hour. */
function logpushBatch(count: number): Buffer {
  const now = Date.now();
  const agents = ['Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36', 'GPTBot/1.2'];
  const lines: string[] = [];
  for (let index = 0; index < count; index++) {
    lines.push(
      JSON.stringify({
        ClientIP: `10.${(index >> 16) & 255}.${(index >> 8) & 255}.${index & 255}`,
        ClientRequestHost: 'docs.example.com',
        ClientRequestMethod: 'GET',
        ClientRequestURI: `/docs/page-${index % 200}`,
        ClientRequestUserAgent: agents[index % 7 === 0 ? 1 : 0],
        EdgeResponseStatus: 200,
        EdgeResponseContentType: 'text/html',
        EdgeStartTimestamp: new Date(now - (index % 3_600_000)).toISOString(),
        RayID: `${now.toString(16)}${index.toString(16).padStart(8, '0')}`,
      }),
    );
  }
  return gzipSync(lines.join('\n'));
}

/**
 * Stores drain batches of `records` Cloudflare records while one connection sends health checks;
 * answers the longest and the median wait of those checks, the longest with nothing else in flight,
 * and the seconds the batches took. `env` configures the server (QUIRE_PARSE_THREADS).
 */
async function drainRun(records: number, env: Record<string, string>) {
  const dataDir = mkdtempSync(join(tmpdir(), 'quire-bench-drains-'));
  const server = await startQuireServer('bench/analytics-server.ts', [], {
    ...env,
    QUIRE_DATA_DIR: dataDir,
    QUIRE_SECRET_KEY: randomBytes(32).toString('base64'),
  });
  try {
    const { url, projectId, key } = server.info as { url: string; projectId: string; key: string };
    const created = await undiciRequest(`${url}/v1/analytics/${projectId}/drains`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ kind: 'cloudflare', name: 'bench' }),
    });
    const drain = (await created.body.json()) as { url: string; secret: string };
    if (created.statusCode !== 201) throw new Error(`creating a drain answered ${created.statusCode}: ${JSON.stringify(drain)}`);
    const batches = Array.from({ length: 4 }, () => logpushBatch(records));
    const send = async (body: Buffer) => {
      const answer = await undiciRequest(`${url}${new URL(drain.url).pathname}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${drain.secret}`, 'content-encoding': 'gzip', 'content-type': 'application/x-ndjson' },
        body,
      });
      const result = (await answer.body.json()) as { accepted: number };
      if (answer.statusCode !== 200 || result.accepted !== records) throw new Error(`the drain answered ${answer.statusCode}: ${JSON.stringify(result)}`);
    };
    // The first batch warms the server (its parse thread, its caches) before anything is timed.
    await send(batches[0]!);
    const idle = await sequentialLatencies(`${url}/healthz`, 500);
    let sent = false;
    const started = performance.now();
    const sending = (async () => {
      for (const batch of batches.slice(1)) await send(batch);
      sent = true;
    })();
    const busy = await sequentialLatencies(`${url}/healthz`, 200, () => sent);
    await sending;
    return {
      longest: busy.at(-1)!,
      median: percentile(busy, 0.5),
      idleLongest: idle.at(-1)!,
      seconds: (performance.now() - started) / 1000,
      gzipped: batches[1]!.length,
    };
  } finally {
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/**
 * A large drain batch beside the API's other requests: the longest wait of a health check while
 * Cloudflare batches of 20,000 records are decompressed, read and checked (in parse threads) and
 * stored, beside the same with every body parsed on the event loop (QUIRE_PARSE_THREADS=0).
 */
async function drains(report: Report): Promise<void> {
  const records = 20_000;
  const inline = await drainRun(records, { QUIRE_PARSE_THREADS: '0' });
  const threads = await drainRun(records, {});
  for (const [name, run] of [
    ['parse threads', threads],
    ['on the event loop', inline],
  ] as const) {
    process.stdout.write(
      `  ${name}: 3 batches of ${records.toLocaleString('en-US')} records (${(run.gzipped / 1024).toFixed(0)} KiB gzipped) stored in ${run.seconds.toFixed(2)} s; ` +
        `health checks meanwhile: p50 ${run.median.toFixed(2)} ms, longest ${run.longest.toFixed(0)} ms (${run.idleLongest.toFixed(0)} ms with nothing in flight)\n`,
    );
  }
  report.add({
    name: `longest health check while ${records.toLocaleString('en-US')}-record drain batches are stored`,
    value: threads.longest,
    unit: 'ms',
    reference: { name: 'parsed on the event loop (QUIRE_PARSE_THREADS=0)', value: inline.longest },
  });
}

export const captureBench: BenchSuite = {
  name: 'capture',
  description:
    'server-side capture: log import beside GoAccess on the same file, quire proxy beside nginx, a bare Node forwarder and direct access, a large drain batch beside other requests (QUIRE_BENCH_CAPTURE=importer|proxy|drains for one part, QUIRE_BENCH_SCALE, QUIRE_BENCH_SECONDS, QUIRE_BENCH_ROUNDS)',
  async run(report) {
    if (part === undefined || part === 'importer') await importer(report);
    if (part === undefined || part === 'proxy') await proxy(report);
    if (part === undefined || part === 'drains') await drains(report);
  },
};
