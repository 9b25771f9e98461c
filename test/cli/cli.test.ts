import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { quireCommands } from '../support/cli.ts';

const run = promisify(execFile);
const dataDir = mkdtempSync(join(tmpdir(), 'quire-cli-'));
// GITHUB_TOKEN: the server-wide credentials an organization granted them uses (nothing here calls GitHub).
const env = { ...process.env, QUIRE_DATA_DIR: dataDir, LOG_LEVEL: 'silent', GITHUB_TOKEN: 'ghp_cliTestToken' };

const { quire, quireFails } = quireCommands(env);

/** Starts `quire serve` and resolves with everything it printed once it listens. */
async function serveOnce(port: number): Promise<string> {
  const child = spawn(process.execPath, ['src/cli/main.ts', 'serve'], { env: { ...env, PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start: ${output}`)), 20_000);
    child.stdout.on('data', () => {
      if (/listening on/.test(output) && (!/First start/.test(output) || /shown only this once/.test(output))) {
        clearTimeout(timer);
        setTimeout(resolve, 100);
      }
    });
  });
  const exited = new Promise((resolve) => child.on('exit', resolve));
  child.kill('SIGTERM');
  await exited;
  return output;
}

afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('quire CLI', () => {
  it('prints the project id and key on the first start only, and stores only the hash of the key', async () => {
    const port = 20000 + Math.floor(Math.random() * 20000);
    const first = await serveOnce(port);
    expect(first).toContain(`http://127.0.0.1:${port}`);
    const projectId = /Project id:\s+(prj_\w+)/.exec(first)?.[1];
    const key = /Admin API key:\s+(quire_\w+)/.exec(first)?.[1];
    expect(projectId).toBeDefined();
    expect(key).toMatch(/^quire_[0-9A-Za-z]{40}$/);
    const second = await serveOnce(port);
    expect(second).toContain('listening on');
    expect(second).not.toContain('quire_');
    expect(second).toContain(`Dashboard: http://127.0.0.1:${port}/dashboard`);
    expect(second).toContain('"npx quire dashboard link" prints a one-time sign-in link');
    const keys = JSON.parse((await quire('keys', 'list', '--json')).stdout);
    expect(keys).toHaveLength(1);
    expect(JSON.stringify(keys)).not.toContain(key);
    expect(keys[0].prefix).toBe(key!.slice(0, 14));
  });

  it('creates organizations, projects and keys with --json output', async () => {
    const org = JSON.parse((await quire('orgs', 'create', '--name', 'Docs team', '--json')).stdout);
    expect(org.id).toMatch(/^org_/);
    // The operator lets the organization use the server-wide GitHub credentials, as on a single-organization install.
    await quire('orgs', 'grant-server-credentials', org.id);
    const project = JSON.parse(
      (
        await quire(
          'projects',
          'create',
          '--name',
          'Handbook',
          '--org',
          org.id,
          '--repository',
          'https://github.com/acme/handbook',
          '--ref',
          'main',
          '--model',
          'anthropic:claude-sonnet-4-5',
          '--json',
        )
      ).stdout,
    );
    expect(project).toMatchObject({
      id: expect.stringMatching(/^prj_/),
      orgId: org.id,
      repository: 'https://github.com/acme/handbook',
      ref: 'main',
      model: 'anthropic:claude-sonnet-4-5',
      skipAssets: true,
      assetExtensions: [],
    });
    const extensions = JSON.parse((await quire('projects', 'update', project.id, '--asset-extensions', '+pdf, -SVG', '--json')).stdout);
    expect(extensions.assetExtensions).toEqual(['+pdf', '-svg']);
    expect(JSON.parse((await quire('projects', 'update', project.id, '--ref', 'main', '--json')).stdout).assetExtensions).toEqual(['+pdf', '-svg']);
    expect(JSON.parse((await quire('projects', 'update', project.id, '--asset-extensions', 'default', '--json')).stdout).assetExtensions).toEqual([]);
    const updated = JSON.parse((await quire('projects', 'update', project.id, '--ref', 'develop', '--skip-assets', 'off', '--json')).stdout);
    expect(updated).toMatchObject({ ref: 'develop', repository: 'https://github.com/acme/handbook', skipAssets: false });
    const listed = JSON.parse((await quire('projects', 'list', '--org', org.id, '--json')).stdout);
    expect(listed.map((row: { id: string }) => row.id)).toEqual([project.id]);

    const created = JSON.parse(
      (await quire('keys', 'create', '--org', org.id, '--project', project.id, '--scopes', 'read,ingest', '--expires', '2030-01-01T00:00:00Z', '--json'))
        .stdout,
    );
    expect(created).toMatchObject({
      key: expect.stringMatching(/^quire_/),
      id: expect.stringMatching(/^key_/),
      scopes: ['read', 'ingest'],
      projectIds: [project.id],
      expiresAt: '2030-01-01T00:00:00.000Z',
    });
    const revoked = JSON.parse((await quire('keys', 'revoke', created.id, '--org', org.id, '--json')).stdout);
    expect(revoked).toEqual({ id: created.id, revoked: true });
    const keys = JSON.parse((await quire('keys', 'list', '--org', org.id, '--json')).stdout);
    expect(keys[0].revokedAt).not.toBeNull();
  });

  it('revokes a key of any organization by its id, with --org as an optional check', async () => {
    const other = JSON.parse((await quire('orgs', 'create', '--name', 'Second team', '--json')).stdout);
    const created = JSON.parse((await quire('keys', 'create', '--org', other.id, '--json')).stdout);
    const first = JSON.parse((await quire('orgs', 'list', '--json')).stdout)[0];
    expect(first.id).not.toBe(other.id);
    expect(await quireFails('keys', 'revoke', created.id, '--org', first.id)).toMatch(new RegExp(`belongs to organization ${other.id}`));
    expect(JSON.parse((await quire('keys', 'list', '--org', other.id, '--json')).stdout)[0].revokedAt).toBeNull();
    expect(JSON.parse((await quire('keys', 'revoke', created.id, '--json')).stdout)).toEqual({ id: created.id, revoked: true });
    expect(JSON.parse((await quire('keys', 'list', '--org', other.id, '--json')).stdout)[0].revokedAt).not.toBeNull();
  });

  it('limits a key to IP addresses and ranges, and refuses entries that are not', async () => {
    const created = JSON.parse((await quire('keys', 'create', '--allow-ips', '203.0.113.0/24, 2001:db8::/32,::ffff:198.51.100.7', '--json')).stdout);
    expect(created.allowedIps).toEqual(['203.0.113.0/24', '2001:db8::/32', '198.51.100.7']);
    const listed = JSON.parse((await quire('keys', 'list', '--json')).stdout);
    expect(listed.find((key: { id: string }) => key.id === created.id).allowedIps).toEqual(['203.0.113.0/24', '2001:db8::/32', '198.51.100.7']);
    expect(await quireFails('keys', 'create', '--allow-ips', '203.0.113.0/33')).toMatch(/203\.0\.113\.0\/33.*0 to 32/);
    expect(await quireFails('keys', 'create', '--allow-ips', 'office')).toMatch(/"office" is not an IP address/);
    expect(await quireFails('keys', 'create', '--allow-ips', ',')).toMatch(/at least one/);
  });

  it('fails with one clear sentence and a non-zero exit', async () => {
    expect(await quireFails('projects', 'create', '--name', 'X', '--model', 'gpt-5')).toMatch(/provider:model/);
    expect(await quireFails('projects', 'create', '--name', 'X', '--repository', 'ftp://example.com/repo')).toMatch(/repository/);
    expect(await quireFails('keys', 'create', '--scopes', 'admin')).toMatch(/read, write, ingest/);
    expect(await quireFails('keys', 'create', '--expires', 'tomorrow')).toMatch(/ISO 8601/);
    expect(await quireFails('keys', 'revoke', 'key_nope')).toMatch(/No key has the id key_nope/);
    expect(await quireFails('projects', 'list', '--org', 'org_nope')).toMatch(/No organization/);
    expect(await quireFails('projects', 'update', 'prj_nope', '--ref', 'x')).toMatch(/No project/);
    expect(await quireFails('projects', 'update', 'prj_nope', '--skip-assets', 'maybe')).toMatch(/--skip-assets takes on or off/);
    expect(await quireFails('projects', 'update', 'prj_nope', '--asset-extensions', '+p/df')).toMatch(
      /--asset-extensions: "\+p\/df" is not an extension change/,
    );
  });

  it('serve exits 1 with what to do when its port is taken, instead of running on without a server', async () => {
    const other = createServer();
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    const port = (other.address() as AddressInfo).port;
    try {
      await run(process.execPath, ['src/cli/main.ts', 'serve'], { env: { ...env, PORT: String(port) }, timeout: 20_000 });
      throw new Error('serve started on a port in use');
    } catch (error) {
      const failure = error as { code: number | null; stderr: string };
      expect(failure.code, failure.stderr).toBe(1);
      expect(failure.stderr).toContain(`quire: port ${port} is in use: stop the other Quire or set PORT`);
    } finally {
      await new Promise((resolve) => other.close(resolve));
    }
  });

  it('refuses a malformed setting with the variable name', async () => {
    try {
      await run(process.execPath, ['src/cli/main.ts', 'migrate'], { env: { ...env, QUIRE_WORKER_CONCURRENCY: 'many' } });
      throw new Error('should fail');
    } catch (error) {
      expect((error as { stderr: string }).stderr).toContain('QUIRE_WORKER_CONCURRENCY must be a whole number');
    }
  });

  it('runs as the package binary', async () => {
    const { stdout } = await run(process.execPath, ['bin/quire.js', 'migrate', '--json'], { env });
    expect(JSON.parse(stdout)).toMatchObject({ dialect: 'sqlite', migrations: expect.arrayContaining(['001_accounts', '002_jobs']) });
  });
});
