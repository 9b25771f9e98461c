import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serverEnvironment, serverNodeFlags } from '../../src/lib/thread-memory.ts';

const run = promisify(execFile);

/** The Dockerfile's instructions, with continuation lines joined and comments left out. */
function instructions(text: string): { keyword: string; argument: string }[] {
  return text
    .replace(/\\\n/g, ' ')
    .split('\n')
    .filter((line) => line.trim() && !line.trim().startsWith('#'))
    .map((line) => {
      const [keyword, ...rest] = line.trim().split(/\s+/);
      return { keyword: keyword.toUpperCase(), argument: rest.join(' ') };
    });
}

/** `KEY=value KEY2=value2` of an ENV instruction. */
function environmentOf(argument: string): Record<string, string> {
  return Object.fromEntries([...argument.matchAll(/(\w+)=(\S+)/g)].map((match) => [match[1], match[2]]));
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('the Dockerfile', () => {
  const steps = instructions(readFileSync('Dockerfile', 'utf8'));
  const stages = steps.filter((step) => step.keyword === 'FROM');
  const final = steps.slice(steps.lastIndexOf(stages.at(-1)!));
  const last = (keyword: string) => final.filter((step) => step.keyword === keyword).at(-1)?.argument;
  const environment = Object.assign({}, ...final.filter((step) => step.keyword === 'ENV').map((step) => environmentOf(step.argument))) as Record<
    string,
    string
  >;
  let dataDir: string;

  beforeAll(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'quire-image-'));
  });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('builds in stages on node:24-slim, installs from the lockfile and runs as a user of its own with the data in a volume', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    for (const stage of stages) expect(stage.argument).toMatch(/^node:24-slim\b/);
    expect(steps.some((step) => step.keyword === 'RUN' && /\bnpm ci\b/.test(step.argument))).toBe(true);
    expect(last('USER')).toMatch(/^(?!root$|0$)\w+/);
    expect(last('VOLUME')).toBe(environment.QUIRE_DATA_DIR);
    expect(last('HEALTHCHECK')).toContain('/readyz');
  });

  it('its entry command serves, its health check passes, and SIGTERM stops it', async () => {
    const entry = [...(JSON.parse(last('ENTRYPOINT')!) as string[]), ...(JSON.parse(last('CMD')!) as string[])];
    const check = JSON.parse(last('HEALTHCHECK')!.replace(/^.*?CMD\s+/, '')) as string[];
    // Node with the server's flags (src/lib/thread-memory.ts), so bin/quire.js serves in that process, with no child.
    expect(entry).toEqual(['node', ...serverNodeFlags, 'bin/quire.js', 'serve']);
    // And the server's environment (glibc reads it as the process starts), so nothing has to start a child for it.
    expect(environment).toMatchObject(serverEnvironment);
    expect(check[0]).toBe('node');
    const port = String(await freePort());
    const env = { ...process.env, ...environment, QUIRE_DATA_DIR: dataDir, PORT: port, HOST: '127.0.0.1', LOG_LEVEL: 'warn' };
    let child: ChildProcess | undefined;
    try {
      child = spawn(process.execPath, entry.slice(1), { env, stdio: ['ignore', 'pipe', 'inherit'] });
      const exited = new Promise<number | null>((resolve) => child!.once('exit', resolve));
      await new Promise<void>((resolve, reject) => {
        createInterface({ input: child!.stdout! }).on('line', (line) => line.startsWith('Quire is listening on') && resolve());
        void exited.then((code) => reject(new Error(`the entry command exited with ${code} before listening`)));
      });
      await run(process.execPath, check.slice(1), { env });
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      // Nothing answers any more: the same health check now fails.
      await expect(run(process.execPath, check.slice(1), { env })).rejects.toThrow();
    } finally {
      if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
  });
});

const systemdAnalyze = spawnSync('systemd-analyze', ['--version']).status === 0;

describe('deploy/quire.service', () => {
  const unit = readFileSync('deploy/quire.service', 'utf8');
  const directive = (name: string) => [...unit.matchAll(new RegExp(`^${name}=(.*)$`, 'gm'))].map((match) => match[1]);

  it('runs as a dedicated user from the install directory, with an environment file, restarts on failure and is hardened', () => {
    expect(directive('User')).toEqual(['quire']);
    expect(directive('WorkingDirectory')).toEqual(['/opt/quire']);
    expect(directive('EnvironmentFile')).toEqual(['/etc/quire/quire.env']);
    expect(directive('Restart')).toEqual(['on-failure']);
    expect(directive('ExecStart')).toEqual([['/opt/quire/node_modules/node/bin/node', ...serverNodeFlags, 'src/cli/main.ts', 'serve'].join(' ')]);
    const environment = directive('Environment').flatMap((line) => line.split(' '));
    for (const [name, value] of Object.entries(serverEnvironment)) expect(environment).toContain(`${name}=${value}`);
    for (const hardening of ['NoNewPrivileges', 'ProtectSystem', 'ProtectHome', 'PrivateTmp', 'CapabilityBoundingSet'])
      expect(directive(hardening)).toHaveLength(1);
  });

  // systemd-analyze comes with the systemd package; the check is skipped where it is not installed.
  it.runIf(systemdAnalyze)('passes systemd-analyze verify, installed here (its ExecStart must exist)', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'quire-unit-'));
    try {
      const path = join(directory, 'quire.service');
      writeFileSync(path, unit.replaceAll('/opt/quire', process.cwd()));
      const result = spawnSync('systemd-analyze', ['verify', path], { encoding: 'utf8' });
      expect(result.stderr + result.stdout).toBe('');
      expect(result.status).toBe(0);
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });
});
