import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serverEnvironment, serverNodeFlags } from '../../src/lib/thread-memory.ts';
import { quireCommands } from '../support/cli.ts';

/**
 * A supervisor (systemd, Docker, a shell's `kill`) signals only the process it started: `npm start`,
 * `npx quire …` or `bin/quire.js` on an older Node. Each must pass the signal on to Quire itself, so
 * the port is free again and no process is left behind.
 */

interface Started {
  parent: ChildProcess;
  /** The log line that says Quire is ready, with the pid of the process that wrote it. */
  ready: { pid: number; line: string };
}

/**
 * Spawns `command` and waits for a line that matches `ready`; the pid of Quire's own process is read
 * from its JSON log lines, which pino writes with `pid`.
 */
async function startUntil(command: string, args: string[], env: NodeJS.ProcessEnv, ready: RegExp): Promise<Started> {
  const parent = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const output: string[] = [];
  let pid: number | undefined;
  const found = await new Promise<{ pid: number; line: string }>((resolve, reject) => {
    const look = (line: string) => {
      output.push(line);
      if (line.startsWith('{')) pid ??= (JSON.parse(line) as { pid: number }).pid;
      if (ready.test(line) && pid !== undefined) resolve({ pid, line });
    };
    for (const stream of [parent.stdout!, parent.stderr!]) createInterface({ input: stream }).on('line', look);
    parent.once('exit', (code) => reject(new Error(`${command} exited with ${code} before it was ready:\n${output.join('\n')}`)));
  });
  return { parent, ready: found };
}

function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function waitFor(condition: () => boolean, timeoutMs: number): Promise<boolean> {
  for (const deadline = Date.now() + timeoutMs; Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 50))) {
    if (condition()) return true;
  }
  return condition();
}

function portIsFree(port: number): Promise<boolean> {
  const server = createServer();
  return new Promise((resolve) => {
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** The Node flags a running process was started with (its command line before the script). */
function nodeFlagsOf(pid: number): string[] {
  const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').slice(1);
  return args.slice(
    0,
    args.findIndex((arg) => !arg.startsWith('-')),
  );
}

/** The variables of `serverEnvironment` as a running process has them (read by glibc as it started). */
function serverEnvironmentOf(pid: number): Record<string, string | undefined> {
  const variables = new Map(
    readFileSync(`/proc/${pid}/environ`, 'utf8')
      .split('\0')
      .map((entry) => [entry.slice(0, entry.indexOf('=')), entry.slice(entry.indexOf('=') + 1)]),
  );
  return Object.fromEntries(Object.keys(serverEnvironment).map((name) => [name, variables.get(name)]));
}

/** Kills whatever a test left running, the parent and Quire alike. */
function killAll(started: Started | undefined): void {
  for (const pid of [started?.parent.pid, started?.ready.pid]) if (pid !== undefined && running(pid)) process.kill(pid, 'SIGKILL');
}

const olderNode = '/usr/bin/node';

describe('stop signals sent to the process a supervisor started', () => {
  let dataDir: string;
  let env: NodeJS.ProcessEnv;
  let projectId: string;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'quire-signals-'));
    env = { ...process.env, QUIRE_DATA_DIR: dataDir, LOG_LEVEL: 'info' };
    const { quire } = quireCommands(env);
    await quire('orgs', 'create', '--name', 'Signals');
    projectId = JSON.parse((await quire('projects', 'create', '--name', 'Signals', '--json')).stdout).id;
  });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('npm start: SIGTERM to npm stops Quire and frees the port', async () => {
    const port = await freePort();
    let started: Started | undefined;
    try {
      started = await startUntil('npm', ['start'], { ...env, PORT: String(port) }, /^Quire is listening on/);
      expect(started.ready.pid).not.toBe(started.parent.pid);
      expect(nodeFlagsOf(started.ready.pid)).toEqual(serverNodeFlags);
      expect(serverEnvironmentOf(started.ready.pid)).toEqual(serverEnvironment);
      const parentExit = new Promise((resolve) => started!.parent.once('exit', resolve));
      process.kill(started.parent.pid!, 'SIGTERM');
      await parentExit;
      expect(await waitFor(() => !running(started!.ready.pid), 5000)).toBe(true);
      expect(await portIsFree(port)).toBe(true);
    } finally {
      killAll(started);
    }
  });

  it('npx quire proxy: SIGINT to npm stops the proxy, which prints its counters', async () => {
    let started: Started | undefined;
    try {
      const args = ['quire', 'proxy', '--project', projectId, '--upstream', 'http://127.0.0.1:9', '--listen', '127.0.0.1:0'];
      started = await startUntil('npx', args, env, /proxy ready/);
      const port = Number(new URL((JSON.parse(started.ready.line) as { listen: string[] }).listen[0]).port);
      let stdout = '';
      started.parent.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      // The pipe ends once npm and the proxy, which shares it, have both closed it: what they wrote has then arrived.
      const stdoutEnded = new Promise((resolve) => started!.parent.stdout!.once('end', resolve));
      const parentExit = new Promise<number | null>((resolve) => started!.parent.once('exit', resolve));
      process.kill(started.parent.pid!, 'SIGINT');
      await parentExit;
      expect(await waitFor(() => !running(started!.ready.pid), 5000)).toBe(true);
      expect(await portIsFree(port)).toBe(true);
      await stdoutEnded;
      expect(stdout).toContain('"dropped":0');
    } finally {
      killAll(started);
    }
  });

  // V8 reads the server's flags (src/lib/thread-memory.ts) only as a process starts: bin/quire.js started without them
  // (`npx quire serve`) runs Quire as a child that has them, and a flag of the same name given by the user wins.
  it('bin/quire.js serve runs Quire with the server flags and environment, as a child that SIGTERM to the parent stops; a flag and a variable the user gave are kept', async () => {
    const port = await freePort();
    let started: Started | undefined;
    try {
      started = await startUntil(process.execPath, ['bin/quire.js', 'serve'], { ...env, PORT: String(port) }, /^Quire is listening on/);
      expect(started.ready.pid).not.toBe(started.parent.pid);
      expect(nodeFlagsOf(started.ready.pid)).toEqual(serverNodeFlags);
      expect(serverEnvironmentOf(started.ready.pid)).toEqual(serverEnvironment);
      const parentExit = new Promise<number | null>((resolve) => started!.parent.once('exit', resolve));
      process.kill(started.parent.pid!, 'SIGTERM');
      expect(await parentExit).toBe(0);
      expect(await waitFor(() => !running(started!.ready.pid), 5000)).toBe(true);
      expect(await portIsFree(port)).toBe(true);
    } finally {
      killAll(started);
    }
    try {
      // One flag in NODE_OPTIONS, the other on Node's command line (V8's --heap-growing-percent is not allowed in NODE_OPTIONS).
      const options = { ...env, PORT: String(port), NODE_OPTIONS: '--max_semi_space_size=32', MALLOC_ARENA_MAX: '4' };
      started = await startUntil(process.execPath, ['--heap-growing-percent=150', 'bin/quire.js', 'serve'], options, /^Quire is listening on/);
      expect(started.ready.pid).toBe(started.parent.pid);
      expect(nodeFlagsOf(started.ready.pid)).toEqual(['--heap-growing-percent=150']);
      expect(serverEnvironmentOf(started.ready.pid)).toEqual({ MALLOC_ARENA_MAX: '4' });
      const parentExit = new Promise<number | null>((resolve) => started!.parent.once('exit', resolve));
      process.kill(started.parent.pid!, 'SIGTERM');
      expect(await parentExit).toBe(0);
    } finally {
      killAll(started);
    }
  }, 90_000);

  // bin/quire.js runs the pinned Node 24 as a child when an older Node starts it.
  const olderNodeVersion = (() => {
    try {
      return Number(/^v(\d+)/.exec(execFileSync(olderNode, ['--version'], { encoding: 'utf8' }))?.[1]);
    } catch {
      return undefined;
    }
  })();
  it.runIf(olderNodeVersion !== undefined && olderNodeVersion < 22)(
    'bin/quire.js on an older Node passes SIGTERM and SIGHUP on and exits as Quire did',
    async () => {
      for (const signal of ['SIGTERM', 'SIGHUP'] as const) {
        const port = await freePort();
        let started: Started | undefined;
        try {
          started = await startUntil(olderNode, ['bin/quire.js', 'serve'], { ...env, PORT: String(port) }, /^Quire is listening on/);
          expect(started.ready.pid).not.toBe(started.parent.pid);
          expect(nodeFlagsOf(started.ready.pid)).toEqual(serverNodeFlags);
          expect(serverEnvironmentOf(started.ready.pid)).toEqual(serverEnvironment);
          const parentExit = new Promise<number | null>((resolve) => started!.parent.once('exit', resolve));
          process.kill(started.parent.pid!, signal);
          expect(await parentExit).toBe(0);
          expect(running(started.ready.pid)).toBe(false);
          expect(await portIsFree(port)).toBe(true);
        } finally {
          killAll(started);
        }
      }
    },
    // Two whole starts and stops of the service through two Nodes: about 5 s on an idle machine, past 30 s at a load of 9.
    90_000,
  );
});
