import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { quireCommands } from '../support/cli.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'quire-cli-proxy-'));
const env = { ...process.env, QUIRE_DATA_DIR: dataDir, LOG_LEVEL: 'silent' };
const { quire, quireFails } = quireCommands(env);

/** A GET of `url` with `headers`: its status and body. */
function get(url: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    request(url, { headers }, (response) => {
      let body = '';
      response.on('data', (chunk) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode!, body }));
    })
      .on('error', reject)
      .end();
  });
}

describe('quire proxy (the command)', () => {
  let upstream: Server;
  let upstreamUrl: string;
  let projectId: string;
  beforeAll(async () => {
    upstream = createServer((incoming, response) => {
      const type = incoming.url!.endsWith('.js') ? 'text/javascript' : 'text/html; charset=utf-8';
      response.writeHead(200, { 'content-type': type }).end(`<h1>${incoming.url}</h1>`);
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
    const org = JSON.parse((await quire('orgs', 'create', '--name', 'Docs team', '--json')).stdout) as { id: string };
    projectId = (JSON.parse((await quire('projects', 'create', '--name', 'Handbook', '--org', org.id, '--json')).stdout) as { id: string }).id;
  });
  afterAll(() => {
    upstream.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('forwards, records, answers its status locally, and prints its counters when stopped, even when signalled twice', async () => {
    const child = spawn(
      process.execPath,
      ['src/cli/main.ts', 'proxy', '--project', projectId, '--upstream', `${upstreamUrl}/ignored/path`, '--listen', '127.0.0.1:0', '--trust-proxy'],
      { env: { ...env, LOG_LEVEL: 'info' }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let output = '';
    let log = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (log += chunk));
    try {
      const ready = await new Promise<{ listen: string[]; upstream: string; project: string }>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`the proxy did not start: ${log}`)), 20_000);
        child.stderr.on('data', () => {
          const line = log.split('\n').find((text) => text.includes('"proxy ready"'));
          if (line) {
            clearTimeout(timer);
            resolve(JSON.parse(line));
          }
        });
      });
      // The upstream is its origin: a path given with it is not kept.
      expect(ready).toMatchObject({ upstream: upstreamUrl, project: projectId });
      const url = ready.listen[0]!;
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(await get(`${url}/guides/setup`, { 'x-forwarded-for': '198.51.100.9', 'user-agent': 'Mozilla/5.0 Firefox/133.0' })).toEqual({
        status: 200,
        body: '<h1>/guides/setup</h1>',
      });
      expect((await get(`${url}/assets/app.js`)).status).toBe(200);
      let status: { stored: number } = { stored: 0 };
      while (status.stored < 1) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        status = JSON.parse((await get(`${url}/.quire/proxy-status`)).body);
      }
    } finally {
      // Twice, as a supervisor and a wrapper that both pass the stop on would: the second, arriving while it stops, is
      // not fatal, and the counters are still printed (cli/stop-signals.ts).
      const exit = new Promise<[number | null, string | null]>((resolve) => child.once('exit', (code, signal) => resolve([code, signal])));
      child.kill('SIGTERM');
      await new Promise((resolve) => setTimeout(resolve, 5));
      child.kill('SIGTERM');
      expect(await exit).toEqual([0, null]);
    }
    expect(JSON.parse(output)).toMatchObject({ recorded: 2, stored: 1, skipped: { 'static asset (not a page view)': 1 }, dropped: 0, buffered: 0 });
    expect(log).toContain('proxy stopped: 1 views stored, 0 requests dropped');
  });

  it('refuses flags it cannot use with a sentence that says what to give', async () => {
    expect(await quireFails('proxy', '--project', projectId, '--upstream', 'ftp://example.com')).toMatch(/--upstream takes the docs site's origin/);
    expect(await quireFails('proxy', '--project', projectId, '--upstream', upstreamUrl, '--listen', 'everywhere')).toMatch(/--listen takes HOST:PORT/);
    expect(await quireFails('proxy', '--project', projectId, '--upstream', upstreamUrl, '--max-buffered', '0')).toMatch(/--max-buffered takes a whole number/);
    expect(await quireFails('proxy', '--project', 'prj_nope', '--upstream', upstreamUrl)).toMatch(/No project has the id prj_nope/);
  });
});
