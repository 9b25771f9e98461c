import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addConnection, openConnections, reencryptConnections } from '../../src/accounts/connections.ts';
import { createOrganization } from '../../src/accounts/organizations.ts';
import { createProject } from '../../src/accounts/projects.ts';
import { keyId, secretBox } from '../../src/accounts/secrets.ts';
import { createDrain } from '../../src/analytics/drains/drains.ts';
import { reencryptDrainSecrets } from '../../src/analytics/drains/stored-secrets.ts';
import { repositoryProblem } from '../../src/code-hosts/access.ts';
import type { Config } from '../../src/config/config.ts';
import { ConfigError } from '../../src/config/parsers.ts';
import { startService } from '../../src/server/service.ts';
import type { Storage } from '../../src/storage/dialect.ts';
import { testApp, testConfig, testContext } from '../support/app.ts';
import { form, signIn } from '../dashboard/session.ts';
import { startGithubServer, type GithubServer } from '../support/github-server.ts';
import { startGitlabServer, type GitlabServer } from '../support/gitlab-server.ts';
import { testDatabases, type TestLocation } from '../support/storage.ts';

const tokenA = 'ghp_orgAToken0123456789abcdefABCDEF01';
const tokenB = 'ghp_orgBToken0123456789abcdefABCDEF02';
const gitlabA = 'glpat-orgAToken0123456789';
const gitlabB = 'glpat-orgBToken0123456789';
const keyOne = randomBytes(32);
const keyTwo = randomBytes(32);
const { privateKey, publicKey } = generateKeyPairSync('rsa', {
  modulusLength: 2048,
  privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  publicKeyEncoding: { type: 'spki', format: 'pem' },
});

describe.each(testDatabases)('code-host credentials belong to an organization, on $dialect', (database) => {
  let storage: Storage & { location: TestLocation };
  let github: GithubServer;
  let gitlab: GitlabServer;
  let config: Config;
  let orgA: string;
  let orgB: string;
  let dataDir: string;
  const githubRepository = (name: string) => `https://github.com/${name}`;
  const gitlabRepository = (name: string) => `${gitlab.url}/${name}.git`;

  beforeAll(async () => {
    storage = await database.open();
    dataDir = mkdtempSync(join(tmpdir(), 'quire-hosted-tenancy-'));
    github = await startGithubServer({
      tokens: [tokenA, tokenB],
      tokenRepositories: { [tokenA]: ['acme-a/docs'], [tokenB]: ['acme-b/docs'] },
      logins: { [tokenA]: 'acme-a-bot', [tokenB]: 'acme-b-bot' },
      app: {
        appId: '4242',
        publicKey,
        installationId: 1,
        installations: { 101: { account: 'acme-a', repositories: ['acme-a/handbook'] }, 202: { account: 'acme-b', repositories: ['acme-b/handbook'] } },
      },
    });
    gitlab = await startGitlabServer({
      token: 'glpat-unused',
      projectsOf: { [gitlabA]: ['group-a/docs'], [gitlabB]: ['group-b/docs'] },
      usernames: { [gitlabA]: 'group-a-bot' },
    });
    config = testConfig({ dataDir, githubApiUrl: github.url, githubAppId: '4242', githubAppPrivateKey: privateKey, gitlabUrl: gitlab.url, secretKey: keyOne });
    orgA = (await createOrganization(storage.db, 'A')).id;
    orgB = (await createOrganization(storage.db, 'B')).id;
    await addConnection(storage.db, config, orgB, { kind: 'github-token', account: 'acme-b-bot', token: tokenB });
    await addConnection(storage.db, config, orgB, { kind: 'github-app', account: 'acme-b (installation 202)', installationId: 202 });
    await addConnection(storage.db, config, orgB, { kind: 'gitlab', account: 'group-b-bot', token: gitlabB });
  });
  afterAll(async () => {
    await Promise.all([github.close(), gitlab.close()]);
    await storage.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const cli = (args: string[], options: { input?: string; env?: Record<string, string> } = {}) =>
    new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      const environment = {
        ...process.env,
        QUIRE_DATA_DIR: dataDir,
        LOG_LEVEL: 'silent',
        GITHUB_API_URL: github.url,
        GITLAB_URL: gitlab.url,
        QUIRE_SECRET_KEY: keyOne.toString('base64'),
        ...storage.location.env,
        ...options.env,
      };
      const child = execFile(process.execPath, ['src/cli/main.ts', ...args], { env: environment }, (error, stdout, stderr) =>
        resolve({ code: error ? Number(error.code) : 0, stdout, stderr }),
      );
      child.stdin!.end(options.input ?? '');
    });

  it('GitHub token: A connects its own token with the CLI and cannot save a project on a repository only B’s token reaches', async () => {
    const added = await cli(['connections', 'add', '--org', orgA, '--kind', 'github-token', '--json'], { input: `${tokenA}\n` });
    expect(added.code, added.stderr).toBe(0);
    expect(JSON.parse(added.stdout)).toMatchObject({ kind: 'github-token', account: 'acme-a-bot' });
    expect(added.stdout).not.toContain(tokenA);
    const stolen = await cli(['projects', 'create', '--org', orgA, '--name', 'Stolen', '--repository', githubRepository('acme-b/docs')]);
    expect(stolen.code).toBe(1);
    expect(stolen.stderr).toMatch(new RegExp(`has no GitHub credentials that reach .*acme-b/docs.*quire connections add --org ${orgA}`));
    const own = await cli(['projects', 'create', '--org', orgA, '--name', 'Own', '--repository', githubRepository('acme-a/docs'), '--json']);
    expect(own.code, own.stderr).toBe(0);
    const listed = await cli(['connections', 'list', '--org', orgA, '--json']);
    expect(JSON.parse(listed.stdout)).toEqual([expect.objectContaining({ kind: 'github-token', account: 'acme-a-bot' })]);
    expect(listed.stdout).not.toContain(tokenA);
  });

  it('GitHub App: A’s installation lists only its repositories; B’s installation reaches B’s', async () => {
    await addConnection(storage.db, config, orgA, { kind: 'github-app', account: 'acme-a (installation 101)', installationId: 101 });
    expect(await repositoryProblem(storage.db, config, orgA, githubRepository('acme-b/handbook'))).toMatch(
      /no GitHub credentials that reach .*acme-b\/handbook/,
    );
    expect(await repositoryProblem(storage.db, config, orgA, githubRepository('acme-a/handbook'))).toBeNull();
    expect(await repositoryProblem(storage.db, config, orgB, githubRepository('acme-b/handbook'))).toBeNull();
    expect(github.requests.some((request) => request.path === '/installation/repositories')).toBe(true);
  });

  it('GitLab: A’s token cannot name B’s project', async () => {
    await addConnection(storage.db, config, orgA, { kind: 'gitlab', account: 'group-a-bot', token: gitlabA });
    expect(await repositoryProblem(storage.db, config, orgA, gitlabRepository('group-b/docs'))).toMatch(/no GitLab credentials that reach .*group-b\/docs/);
    expect(await repositoryProblem(storage.db, config, orgA, gitlabRepository('group-a/docs'))).toBeNull();
    expect(await repositoryProblem(storage.db, config, orgB, gitlabRepository('group-b/docs'))).toBeNull();
  });

  it('server-wide credentials serve only organizations granted them', async () => {
    const serverWide = { ...config, githubToken: tokenB, gitlabToken: gitlabB };
    const other = (await createOrganization(storage.db, 'C')).id;
    expect(await repositoryProblem(storage.db, serverWide, other, githubRepository('acme-b/docs'))).toMatch(/no GitHub credentials/);
    expect(await repositoryProblem(storage.db, serverWide, other, gitlabRepository('group-b/docs'))).toMatch(/no GitLab credentials/);
    const granted = await cli(['orgs', 'grant-server-credentials', other]);
    expect(granted.code, granted.stderr).toBe(0);
    expect(await repositoryProblem(storage.db, serverWide, other, githubRepository('acme-b/docs'))).toBeNull();
    expect(
      await repositoryProblem(storage.db, { ...serverWide, githubToken: undefined, githubAppId: undefined }, other, githubRepository('acme-b/docs')),
    ).toMatch(new RegExp(`on GitHub; set GITHUB_TOKEN.* in the server's environment, or connect a token .*quire connections add --org ${other} --kind`));
  });

  it('dashboard: connects a token without showing it back, and cannot disconnect another organization’s connection', async () => {
    const app = await testApp(testContext(storage, { config }));
    try {
      const session = await signIn(app, storage, orgA);
      const headers = { cookie: session.cookie, 'content-type': 'application/x-www-form-urlencoded' };
      const added = await app.inject({
        method: 'POST',
        url: '/dashboard/connections',
        headers,
        payload: form({ csrf: session.csrf, kind: 'gitlab', token: gitlabA }),
      });
      expect(added.statusCode).toBe(200);
      expect(added.body).toContain('group-a-bot');
      expect(added.body).not.toContain(gitlabA);
      const page = await app.inject({ method: 'GET', url: '/dashboard/connections', headers: { cookie: session.cookie } });
      expect(page.body).not.toContain(gitlabA);
      const forged = await app.inject({
        method: 'POST',
        url: '/dashboard/connections',
        headers,
        payload: form({ csrf: session.csrf, kind: 'github-app', token: '202' }),
      });
      expect(forged.statusCode).toBe(400);
      const bConnection = await storage.db.selectFrom('code_host_connections').select('id').where('org_id', '=', orgB).executeTakeFirstOrThrow();
      const removal = await app.inject({
        method: 'POST',
        url: `/dashboard/connections/${bConnection.id}/remove`,
        headers,
        payload: form({ csrf: session.csrf }),
      });
      expect(removal.statusCode).toBe(404);
      expect(await storage.db.selectFrom('code_host_connections').select('id').where('id', '=', bConnection.id).executeTakeFirst()).toBeDefined();
    } finally {
      await app.close();
    }
  });

  it('stores tokens encrypted, opens them after a key rotation, and refuses to start without the key', async () => {
    const raw = await storage.db.selectFrom('code_host_connections').select(['org_id', 'secret']).where('secret', 'is not', null).execute();
    expect(raw.length).toBeGreaterThanOrEqual(3);
    for (const secret of [tokenA, tokenB, gitlabA, gitlabB]) expect(JSON.stringify(raw)).not.toContain(secret);
    const project = await createProject(storage.db, orgB, { name: 'Drained' });
    const drain = await createDrain(storage.db, secretBox(config), project.id, { kind: 'ndjson' });

    const rotated = { ...config, secretKey: keyTwo, secretKeyPrevious: keyOne };
    const rotation = await cli(['connections', 'rotate-key'], {
      env: { QUIRE_SECRET_KEY: keyTwo.toString('base64'), QUIRE_SECRET_KEY_PREVIOUS: keyOne.toString('base64') },
    });
    expect(rotation.code, rotation.stderr).toBe(0);
    expect(rotation.stdout).toMatch(/Re-encrypted \d+ token\(s\), \d+ webhook secret\(s\) and 1 log drain secret\(s\)/);
    const newKeyOnly = { ...rotated, secretKeyPrevious: undefined };
    expect((await openConnections(storage.db, newKeyOnly, orgB, ['github-token']))[0].token).toBe(tokenB);
    await expect(openConnections(storage.db, config, orgB, ['github-token'])).rejects.toThrow(ConfigError);
    expect(await reencryptConnections(storage.db, newKeyOnly)).toBe(0);
    // The drain's secret opens with the new key alone, so QUIRE_SECRET_KEY_PREVIOUS can go without its batches getting 503.
    const drainRow = await storage.db.selectFrom('analytics_drains').select('secret').where('id', '=', drain.row.id).executeTakeFirstOrThrow();
    expect(secretBox(newKeyOnly).open(drainRow.secret)).toBe(drain.secret);
    expect(await reencryptDrainSecrets(storage.db, newKeyOnly)).toBe(0);

    const start = (secretKey: Buffer | undefined) =>
      startService({ config: { ...config, secretKey, secretKeyPrevious: undefined }, api: false, worker: false, storage });
    await expect(start(undefined)).rejects.toThrow(/QUIRE_SECRET_KEY is not set, but the database holds encrypted code-host tokens/);
    await expect(start(keyOne)).rejects.toThrow(/neither QUIRE_SECRET_KEY nor QUIRE_SECRET_KEY_PREVIOUS/);
    // A drain secret sealed with a key Quire does not have stops the start too, naming that key.
    await (await start(keyTwo)).stop();
    const keyThree = randomBytes(32);
    const lost = await createDrain(storage.db, secretBox({ secretKey: keyThree, secretKeyPrevious: undefined }), project.id, { kind: 'vercel' });
    try {
      await expect(start(keyTwo)).rejects.toThrow(new RegExp(`key \\(id ${keyId(keyThree)}\\) that is neither QUIRE_SECRET_KEY`));
    } finally {
      await storage.db.deleteFrom('analytics_drains').where('id', '=', lost.row.id).execute();
    }
    const missingKey = await cli(['connections', 'add', '--org', orgA, '--kind', 'github-token'], { input: tokenA, env: { QUIRE_SECRET_KEY: '' } });
    expect(missingKey.code).toBe(1);
    expect(missingKey.stderr).toMatch(/without an encryption key. Set QUIRE_SECRET_KEY/);
  });
});
