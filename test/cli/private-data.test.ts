import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * The data directory holds password hashes, emails, sealed secrets and visitor data: what Quire makes
 * there is its service user's alone, whatever the umask, and a directory the operator made is left as it
 * is, with a warning when others can read it.
 */

const main = resolve('src/cli/main.ts');
const cleanEnvironment = Object.fromEntries(
  Object.entries(process.env).filter(([name]) => !/^(QUIRE_|DATABASE_URL$|PORT$|HOST$|GITHUB_|GITLAB_|LOG_LEVEL$)/.test(name)),
);

const root = mkdtempSync(join(tmpdir(), 'quire-private-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const modeOf = (path: string) => (statSync(path).mode & 0o777).toString(8);

/** Starts `quire serve` under umask 022, and gives the modes of what it made while it runs and everything it printed. */
async function serveOnce(dataDir: string): Promise<{ modes: Record<string, string>; output: string }> {
  const child = spawn('/bin/sh', ['-c', 'umask 022 && exec "$0" "$@"', process.execPath, main, 'serve', '--no-worker'], {
    env: { ...cleanEnvironment, QUIRE_DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const exited = new Promise((resolve) => child.once('exit', resolve));
  try {
    await new Promise<void>((resolve, reject) => {
      for (const stream of [child.stdout, child.stderr])
        createInterface({ input: stream }).on('line', (line) => {
          lines.push(line);
          if (line.startsWith('Quire is listening')) resolve();
        });
      void exited.then(() => reject(new Error(`quire serve exited before it listened:\n${lines.join('\n')}`)));
    });
    const database = join(dataDir, 'quire.db');
    const paths = { dataDir, database, wal: `${database}-wal`, shm: `${database}-shm`, secretKey: join(dataDir, 'secret-key') };
    return { modes: Object.fromEntries(Object.entries(paths).map(([name, path]) => [name, modeOf(path)])), output: lines.join('\n') };
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

describe('the data directory and the database', () => {
  it('a first start under umask 022 makes the directory 0700 and the database, its log and the key 0600', async () => {
    const { modes, output } = await serveOnce(join(root, 'new', 'data'));
    expect(modes).toEqual({ dataDir: '700', database: '600', wal: '600', shm: '600', secretKey: '600' });
    expect(output).not.toContain('chmod 700');
  });

  it('a data directory the operator made is left as it is, with a warning when others can read it', async () => {
    const dataDir = join(root, 'made');
    mkdirSync(dataDir);
    chmodSync(dataDir, 0o755);
    const { modes, output } = await serveOnce(dataDir);
    expect(modes).toEqual({ dataDir: '755', database: '600', wal: '600', shm: '600', secretKey: '600' });
    expect(output).toContain(`The data directory ${dataDir} is open to other users than Quire's (mode 755)`);
    expect(output).toContain(`run \\"chmod 700 ${dataDir}\\"`);
  });
});
