import { randomBytes } from 'node:crypto';
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { addConnection } from '../../src/accounts/connections.ts';
import type { Config } from '../../src/config/config.ts';
import type { Grants } from '../support/app.ts';
import type { Storage } from '../../src/storage/dialect.ts';
import { startGitHttpServer, type GitHttpServer } from '../support/git-http-server.ts';
import { git } from '../support/git-repositories.ts';
import { startGithubServer, type GithubServer } from '../support/github-server.ts';
import { startGitlabServer, type GitlabServer } from '../support/gitlab-server.ts';
import { scriptedTurns, startOpenAiServer, type ModelScript, type OpenAiServer } from '../support/openai-server.ts';
import { testDatabases } from '../support/storage.ts';
import { filesContaining, startSameOriginProxy } from './same-origin-proxy.ts';
import { startQuire, type QuireUnderTest } from './service-harness.ts';

const githubToken = 'ghp_e2eTestToken0123456789abcdefABCDEF';
const gitlabToken = 'glpat-e2eTestToken0123456789';

const pageWriter: ModelScript = (request, turn) => {
  const followUp = request.messages.findLast((message) => message.role === 'user')?.content === 'Add a second question';
  const content = followUp ? '# FAQ\n\nQ1.\n\nQ2.\n' : '# FAQ\n\nQ1.\n';
  return scriptedTurns(
    [
      {
        text: '',
        toolCalls: [
          { name: 'write_file', arguments: { path: 'docs/faq.md', content } },
          {
            name: 'write_file',
            arguments: { path: 'mkdocs.yml', content: 'site_name: Acme\nnav:\n  - Home: index.md\n  - Guide: guide.md\n  - FAQ: faq.md\n' },
          },
        ],
      },
    ],
    followUp ? 'Add a second question' : 'Add an FAQ page\n\n- docs/faq.md: new',
  )(request, turn);
};

describe.each(testDatabases)('agent jobs on hosted repositories through the API on $dialect', (database) => {
  let model: OpenAiServer;
  let githubGit: GitHttpServer;
  let github: GithubServer;
  let storage: Storage;
  let quire: QuireUnderTest | undefined;

  beforeAll(async () => {
    model = await startOpenAiServer(pageWriter);
    githubGit = await startGitHttpServer({ username: 'x-access-token', password: githubToken, privateFetch: true });
    // With its own connection the token reaches only acme/own; the server-wide token is not checked so.
    github = await startGithubServer({ tokens: [githubToken], tokenRepositories: { [githubToken]: ['acme/own'] } });
  });
  afterEach(async () => {
    await quire?.stop();
    quire = undefined;
    await storage?.close();
    github.refuse = null;
    github.pullRequestUrl = null;
  });
  afterAll(async () => {
    await Promise.all([model.close(), githubGit.close(), github.close()]);
  });

  async function start(repository: string, config: Partial<Config> = {}, ref = 'main', grants: Grants = { serverCredentials: true }) {
    storage = await database.open();
    quire = await startQuire(storage, {
      repository,
      ref,
      grants,
      config: { openaiBaseUrl: model.url, githubServerUrl: githubGit.url, githubApiUrl: github.url, githubToken, ...config },
    });
    return quire;
  }

  async function runJob(quire: QuireUnderTest, prompt = 'Add an FAQ page') {
    const created = await quire.create(prompt);
    expect(created.status).toBe(201);
    return quire.finished(created.body.id);
  }

  it('GitHub: pushes over smart HTTP, opens the pull request, updates it on a follow-up, and never leaks the token', async () => {
    const repository = githubGit.createRepository('acme/docs');
    const quire = await start(repository);
    const done = await runJob(quire);
    expect(done).toMatchObject({ status: 'completed', error: null, prLink: `${github.url}/acme/docs/pull/1`, draft: false, problems: [] });
    expect(github.pulls).toEqual([
      expect.objectContaining({ number: 1, owner: 'acme', repo: 'docs', head: `quire/${done.id}`, base: 'main', title: 'Add an FAQ page', draft: false }),
    ]);
    const bare = join(githubGit.root, 'acme/docs.git');
    expect(git(bare, 'show', `quire/${done.id}:docs/faq.md`)).toBe('# FAQ\n\nQ1.\n');

    await quire.followUp(done.id, 'Add a second question');
    const again = await quire.finished(done.id);
    expect(again).toMatchObject({ status: 'completed', prLink: done.prLink });
    expect(github.pulls).toHaveLength(1);
    expect(github.pulls[0].body).toContain('**Follow-up: Add a second question**');
    expect(git(bare, 'show', `quire/${done.id}:docs/faq.md`)).toBe('# FAQ\n\nQ1.\n\nQ2.\n');

    expect(JSON.stringify(await quire.messages(done.id))).not.toContain(githubToken);
    expect(JSON.stringify(model.requests)).not.toContain(githubToken);
    expect(filesContaining(quire.dataDir, githubToken)).toEqual([]);
    expect(filesContaining(quire.dataDir, 'acme/docs.git').length, 'the scan reaches the mirror’s git config').toBeGreaterThan(0);
  });

  it('GitHub: works with the organization’s own token only, and fails a job on a repository it does not reach without pushing', async () => {
    const own = githubGit.createRepository('acme/own');
    const quire = await start(own, { githubToken: undefined, secretKey: randomBytes(32), accountCacheMs: 0 }, 'main', {});
    await addConnection(storage.db, quire.service.context.config, quire.tenant.orgId, { kind: 'github-token', account: 'acme-bot', token: githubToken });
    const done = await runJob(quire);
    expect(done).toMatchObject({ status: 'completed', error: null, prLink: expect.stringMatching(/\/acme\/own\/pull\/\d+$/) });
    expect(git(join(githubGit.root, 'acme/own.git'), 'branch', '--list', 'quire/*')).toContain(`quire/${done.id}`);

    // A project row pointing at a repository the connection does not reach (saved before a connection was removed, say).
    const other = githubGit.createRepository('acme/other');
    await storage.db.updateTable('projects').set({ repository: other }).where('id', '=', quire.tenant.project.id).execute();
    const refused = await runJob(quire);
    expect(refused.status).toBe('failed');
    expect(refused.error).toMatch(/has no GitHub credentials that reach .*acme\/other.*quire connections add/);
    expect(refused.error).not.toContain(githubToken);
    expect(git(join(githubGit.root, 'acme/other.git'), 'branch', '--list', 'quire/*')).toBe('');
    expect(github.pulls.filter((pull) => pull.repo === 'other')).toEqual([]);
  });

  it('GitHub: fails with the host’s explanation when pull-request creation is refused (403)', async () => {
    github.refuse = { status: 403, message: 'Resource not accessible by personal access token' };
    const done = await runJob(await start(githubGit.createRepository('acme/refused')));
    expect(done.status).toBe('failed');
    expect(done.error).toMatch(/403/);
    expect(done.error).not.toContain(githubToken);
  });

  it('GitHub: fails, storing no link, when the host answers a pull-request link that is not http(s)', async () => {
    github.pullRequestUrl = 'javascript:alert(document.domain)';
    const done = await runJob(await start(githubGit.createRepository('acme/hostile')));
    expect(done).toMatchObject({ status: 'failed', prLink: null });
    expect(done.error).toMatch(/^The code host returned an invalid pull request link/);
    expect(done.error).toContain(`quire/${done.id}`);
    const stored = await storage.db.selectFrom('jobs').select('pr_link').where('id', '=', done.id).executeTakeFirstOrThrow();
    expect(stored.pr_link).toBeNull();
  });

  it('GitHub: fails when the remote rejects the push', async () => {
    const repository = githubGit.createRepository('acme/protected');
    const hook = join(githubGit.root, 'acme/protected.git/hooks/pre-receive');
    writeFileSync(hook, '#!/bin/sh\necho "branch creation is restricted" >&2\nexit 1\n');
    chmodSync(hook, 0o755);
    const done = await runJob(await start(repository));
    expect(done.status).toBe('failed');
    expect(done.error).toMatch(/rejected the push of branch quire\//);
    expect(github.pulls.filter((pull) => pull.repo === 'protected')).toEqual([]);
  });

  it('fails clearly when the repository or the ref does not exist', async () => {
    const missing = await runJob(await start(`${githubGit.url}/acme/missing.git`));
    expect(missing.status).toBe('failed');
    expect(missing.error).toMatch(/acme\/missing/);
    expect(missing.error).not.toContain(githubToken);
    await quire?.stop();
    await storage.close();
    quire = undefined;
    const badRef = await runJob(await start(githubGit.createRepository('acme/refs'), {}, 'no-such-branch'));
    expect(badRef.status).toBe('failed');
    expect(badRef.error).toMatch(/no-such-branch/);
  });

  it('fails with the connection error when the model server is down', async () => {
    const done = await runJob(await start(githubGit.createRepository('acme/offline'), { openaiBaseUrl: 'http://127.0.0.1:9/v1' }));
    expect(done.status).toBe('failed');
    expect(done.error).toMatch(/^The model provider failed: Cannot connect to API/);
  });

  describe('GitLab', () => {
    let gitlabGit: GitHttpServer;
    let gitlab: GitlabServer;
    let origin: { url: string; close(): Promise<void> };
    beforeAll(async () => {
      gitlabGit = await startGitHttpServer({ username: 'oauth2', password: gitlabToken });
      gitlab = await startGitlabServer({ token: gitlabToken });
      origin = await startSameOriginProxy(gitlabGit.url, gitlab.url);
    });
    afterAll(async () => {
      await Promise.all([origin.close(), gitlabGit.close(), gitlab.close()]);
    });

    it('opens a merge request and updates the same one on a follow-up', async () => {
      gitlabGit.createRepository('acme/docs');
      const quire = await start(`${origin.url}/acme/docs.git`, { gitlabUrl: origin.url, gitlabToken, pullRequestDraft: true });
      const done = await runJob(quire);
      expect(done).toMatchObject({ status: 'completed', prLink: `${gitlab.url}/acme/docs/-/merge_requests/1` });
      expect(gitlab.mergeRequests[0]).toMatchObject({
        project: 'acme/docs',
        source_branch: `quire/${done.id}`,
        target_branch: 'main',
        title: 'Draft: Add an FAQ page',
      });
      await quire.followUp(done.id, 'Add a second question');
      expect(await quire.finished(done.id)).toMatchObject({ status: 'completed', prLink: done.prLink });
      expect(gitlab.mergeRequests).toHaveLength(1);
      expect(gitlab.mergeRequests[0].description).toContain('**Follow-up: Add a second question**');
      expect(filesContaining(quire.dataDir, gitlabToken)).toEqual([]);
    });
  });
});
