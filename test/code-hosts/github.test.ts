import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { githubApiUrl } from '../../src/code-hosts/github-auth.ts';
import { identifyConnection } from '../../src/code-hosts/connect.ts';
import { codeHostFor } from '../../src/code-hosts/select.ts';
import { CodeHostError } from '../../src/code-hosts/types.ts';
import { openWorkspace } from '../../src/workspace/workspace.ts';
import { testConfig } from '../support/app.ts';
import { git } from '../support/git-repositories.ts';
import { startGitHttpServer, type GitHttpServer } from '../support/git-http-server.ts';
import { startGithubServer, type GithubServer } from '../support/github-server.ts';
import { refusingUrl } from '../support/refusing-url.ts';

const token = 'ghp_testtoken0123456789abcdefghijklmnop';
const { publicKey, privateKey } = generateKeyPairSync('rsa', {
  modulusLength: 2048,
  publicKeyEncoding: { type: 'spki', format: 'pem' },
  privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
});

let gitServer: GitHttpServer;
let api: GithubServer;
let root: string;

beforeAll(async () => {
  gitServer = await startGitHttpServer({ username: 'x-access-token', password: token });
  api = await startGithubServer({ tokens: [token], app: { appId: '4242', publicKey, installationId: 77 }, htmlUrl: 'https://github.example.test' });
  root = mkdtempSync(join(tmpdir(), 'quire-github-'));
});
afterAll(async () => {
  await Promise.all([gitServer.close(), api.close()]);
  rmSync(root, { recursive: true, force: true });
});
afterEach(() => {
  api.refuse = null;
});

const request = { branch: 'quire/job_1', base: 'main', title: 'Add a FAQ', body: 'The agent added a FAQ page.' };

describe('GitHub code host', () => {
  it('pushes with the token as x-access-token and opens, then updates, one pull request', async () => {
    const repository = gitServer.createRepository('acme/docs');
    const host = codeHostFor(repository, testConfig({ githubServerUrl: gitServer.url, githubApiUrl: api.url, githubToken: token }));
    expect(host.name).toBe('github');
    const credentials = await host.gitCredentials(repository);
    expect(credentials).toEqual({ username: 'x-access-token', password: token });

    const workspace = await openWorkspace({ repository, ref: 'main', branch: 'quire/job_1', jobId: 'job_1', root, credentials });
    await workspace.files.write('docs/faq.md', '# FAQ\n');
    await workspace.commitAll('Add a FAQ', { name: 'Quire', email: 'quire@example.test' });
    await workspace.push();
    await workspace.dispose();
    expect(git(join(gitServer.root, 'acme/docs.git'), 'show', 'quire/job_1:docs/faq.md')).toBe('# FAQ\n');

    const opened = await host.openOrUpdatePullRequest({ repository, ...request, draft: true });
    expect(opened).toEqual({ number: 1, url: 'https://github.example.test/acme/docs/pull/1', draft: true });
    expect(api.pulls[0]).toMatchObject({ owner: 'acme', repo: 'docs', head: 'quire/job_1', base: 'main', title: 'Add a FAQ', draft: true });
    expect(api.requests.at(-1)?.headers.authorization).toBe(`token ${token}`);

    const updated = await host.openOrUpdatePullRequest({ repository, ...request, title: 'Add a FAQ and a glossary', existingNumber: 1 });
    expect(updated).toEqual(opened);
    expect(api.requests.at(-1)?.method).toBe('PATCH');
    expect(api.pulls).toHaveLength(1);
    expect(api.pulls[0].title).toBe('Add a FAQ and a glossary');

    // A run that crashed after opening the pull request did not save its number: the open one is reused.
    const reused = await host.openOrUpdatePullRequest({ repository, ...request, body: 'Retried.' });
    expect(reused.number).toBe(1);
    expect(api.pulls).toHaveLength(1);
    expect(api.pulls[0].body).toBe('Retried.');
  });

  it('turns a 403 into a CodeHostError that names the permissions and hides the token', async () => {
    const repository = 'https://github.com/acme/private-docs';
    const host = codeHostFor(repository, testConfig({ githubApiUrl: api.url, githubToken: token }));
    api.refuse = { status: 403, message: 'Resource not accessible by personal access token' };
    const error = await host.openOrUpdatePullRequest({ repository, ...request }).then(
      () => null,
      (caught: unknown) => caught as CodeHostError,
    );
    expect(error).toBeInstanceOf(CodeHostError);
    expect(error?.status).toBe(403);
    expect(error?.message).toMatch(/refused to open a pull request on acme\/private-docs \(403\).*Pull requests: read and write.*Resource not accessible/);
    expect(error?.message).not.toContain(token);
  });

  it('signs in as a GitHub App: finds the installation of the repository and uses its token', async () => {
    const repository = 'https://github.com/acme/app-docs.git';
    const host = codeHostFor(repository, testConfig({ githubApiUrl: api.url, githubAppId: '4242', githubAppPrivateKey: privateKey }));
    const before = api.requests.length;
    const credentials = await host.gitCredentials(repository);
    expect(credentials?.username).toBe('x-access-token');
    expect(api.issuedTokens).toContain(credentials?.password);
    const paths = api.requests.slice(before).map((entry) => `${entry.method} ${entry.path}`);
    expect(paths).toEqual(['GET /repos/acme/app-docs/installation', 'POST /app/installations/77/access_tokens']);

    const opened = await host.openOrUpdatePullRequest({ repository, ...request, branch: 'quire/job_app' });
    expect(opened.url).toMatch(/acme\/app-docs\/pull\/\d+$/);
    expect(api.requests.at(-1)?.headers.authorization).toBe(`token ${credentials?.password}`);
  });

  it('refuses an App whose key GitHub does not accept, without leaking the key', async () => {
    const other = generateKeyPairSync('rsa', {
      modulusLength: 2048,
      privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
      publicKeyEncoding: { type: 'spki', format: 'pem' },
    });
    const host = codeHostFor('https://github.com/acme/docs', testConfig({ githubApiUrl: api.url, githubAppId: '4242', githubAppPrivateKey: other.privateKey }));
    const error = await host.gitCredentials('https://github.com/acme/docs').then(
      () => null,
      (caught: unknown) => caught as Error,
    );
    expect(error).toBeInstanceOf(CodeHostError);
    expect(error?.message).toMatch(/401/);
    expect(error?.message).not.toContain('PRIVATE KEY');
  });

  it('says GitHub could not be reached, and why, when the request gets no answer (not a 500)', async () => {
    const checkToken = (githubApiUrl: string) =>
      identifyConnection(testConfig({ githubApiUrl }), { kind: 'github-token', token }).then(
        () => null,
        (caught: unknown) => caught as CodeHostError,
      );
    const refused = await checkToken(await refusingUrl());
    expect(refused).toBeInstanceOf(CodeHostError);
    expect(refused?.message).toMatch(
      /^GitHub could not be reached to check the token \(connect ECONNREFUSED 127\.0\.0\.1:\d+\); check GITHUB_API_URL and the network\.$/,
    );
    expect(refused?.status).toBeUndefined();
    const unknown = await checkToken('http://api.github.invalid');
    expect(unknown?.message).toMatch(
      /^GitHub could not be reached to check the token \(getaddrinfo (ENOTFOUND|EAI_AGAIN) api\.github\.invalid\); check GITHUB_API_URL/,
    );
    expect(`${refused?.message} ${unknown?.message}`).not.toContain(token);
  });

  it('still reports an answer of HTTP 500 as GitHub’s own failure', async () => {
    const repository = 'https://github.com/acme/docs';
    api.refuse = { status: 500, message: 'Server Error' };
    const error = await codeHostFor(repository, testConfig({ githubApiUrl: api.url, githubToken: token }))
      .openOrUpdatePullRequest({ repository, ...request })
      .then(
        () => null,
        (caught: unknown) => caught as CodeHostError,
      );
    expect(error?.message).toMatch(/could not open a pull request on acme\/docs \(HTTP 500\); try again later\. GitHub said: Server Error\./);
  });

  it('derives the REST address for github.com and for Enterprise Server', () => {
    expect(githubApiUrl(testConfig())).toBe('https://api.github.com');
    expect(githubApiUrl(testConfig({ githubServerUrl: 'https://git.acme.test' }))).toBe('https://git.acme.test/api/v3');
    expect(githubApiUrl(testConfig({ githubServerUrl: 'https://git.acme.test', githubApiUrl: 'https://api.acme.test' }))).toBe('https://api.acme.test');
  });
});
