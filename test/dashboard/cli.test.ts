import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const dataDir = mkdtempSync(join(tmpdir(), 'quire-dashboard-cli-'));
const env = { ...process.env, QUIRE_DATA_DIR: dataDir, LOG_LEVEL: 'silent', PORT: '0', QUIRE_WORKER: 'false' };

/** Signs in with a link the way a browser does; returns the session cookie. */
async function signInWith(link: string): Promise<string> {
  const page = await fetch(link);
  expect(page.status).toBe(200);
  const formCookie = /quire_sign_in=[^;]+/.exec(page.headers.get('set-cookie') ?? '')![0];
  const csrf = /name="csrf" value="([^"]+)"/.exec(await page.text())![1];
  const token = new URL(link).searchParams.get('token')!;
  const response = await fetch(new URL('/dashboard/sign-in', link), {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie: formCookie, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token, csrf }),
  });
  expect(response.status).toBe(303);
  return /quire_session=[^;]+/.exec(response.headers.get('set-cookie') ?? '')![0];
}

describe('the first start and "quire dashboard link"', () => {
  let server: ChildProcess;
  let output = '';

  beforeAll(async () => {
    server = spawn(process.execPath, ['src/cli/main.ts', 'serve'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    server.stdout!.on('data', (chunk) => (output += chunk));
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`serve did not start: ${output}`)), 20_000);
      server.stdout!.on('data', () => {
        if (/"quire dashboard link" prints a new one/.test(output)) {
          clearTimeout(timer);
          resolve();
        }
      });
    });
  });
  afterAll(() => {
    server?.kill('SIGTERM');
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('prints a sign-in link beside the first key that opens the API keys page with the project id', async () => {
    const link = /Dashboard: +(\S+)/.exec(output)![1];
    const projectId = /Project id: +(prj_\S+)/.exec(output)![1];
    const cookie = await signInWith(link);
    const keys = await fetch(new URL('/dashboard/keys', link), { headers: { cookie } });
    expect(keys.status).toBe(200);
    expect(await keys.text()).toContain(projectId);
    const again = await fetch(link);
    const csrf = /name="csrf" value="([^"]+)"/.exec(await again.text())![1];
    const reuse = await fetch(new URL('/dashboard/sign-in', link), {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie: /quire_sign_in=[^;]+/.exec(again.headers.get('set-cookie') ?? '')![0], 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: new URL(link).searchParams.get('token')!, csrf }),
    });
    expect(reuse.status).toBe(400);
  });

  it('prints a new link on demand, and says what to do for an unknown organization', async () => {
    const base = /listening on (\S+) /.exec(output)![1];
    const { stdout } = await run(process.execPath, ['src/cli/main.ts', 'dashboard', 'link', '--json'], { env: { ...env, QUIRE_PUBLIC_URL: base } });
    const printed = JSON.parse(stdout) as { url: string; orgId: string; expiresAt: string };
    expect(printed.url.startsWith(`${base}/dashboard/sign-in?token=`)).toBe(true);
    expect(Date.parse(printed.expiresAt) - Date.now()).toBeGreaterThan(29 * 60_000);
    expect(await signInWith(printed.url)).toMatch(/^quire_session=/);

    const failure = await run(process.execPath, ['src/cli/main.ts', 'dashboard', 'link', '--org', 'org_unknown'], { env }).catch(
      (error: { code: number; stderr: string }) => error,
    );
    expect(failure).toMatchObject({ code: 1, stderr: expect.stringContaining('quire orgs list') });
  });
});
