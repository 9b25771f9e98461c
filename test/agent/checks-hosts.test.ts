import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Storage } from '../../src/storage/dialect.ts';
import { signIn } from '../dashboard/session.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts';
import { startGitHttpServer, type GitHttpServer } from '../support/git-http-server.ts';
import { createBareRepository, git } from '../support/git-repositories.ts';
import { startGithubServer, type GithubServer } from '../support/github-server.ts';
import { scriptedTurns, startOpenAiServer, type ModelScript, type OpenAiServer } from '../support/openai-server.ts';
import { testDatabases } from '../support/storage.ts';
import { startQuire, type QuireUnderTest } from './service-harness.ts';

const githubToken = 'ghp_checksTestToken0123456789abcdefABCD';

const fixesEverything = [
  { name: 'write_file', arguments: { path: 'docs/faq.md', content: '# FAQ\n\nSee [the guide](guide.md).\n' } },
  { name: 'write_file', arguments: { path: 'mkdocs.yml', content: 'site_name: Acme\nnav:\n  - Home: index.md\n  - Guide: guide.md\n  - FAQ: faq.md\n' } },
];

/** Adds a page and never lists it in mkdocs.yml, whatever the checks say: problems remain (until a follow-up asks to fix them). */
const forgetsNavigation: ModelScript = (request, turn) => {
  const last = String(request.messages.findLast((message) => message.role === 'user')?.content);
  if (last === 'Fix the problems') return scriptedTurns([{ text: '', toolCalls: fixesEverything }], 'Fix the FAQ page')(request, turn);
  const repairing = last.startsWith('Quire checked');
  return scriptedTurns(
    repairing ? [] : [{ text: '', toolCalls: [{ name: 'write_file', arguments: { path: 'docs/faq.md', content: '# FAQ\n\nSee [pricing](pricing.md).\n' } }] }],
    'Add an FAQ page\n\n- docs/faq.md: new',
  )(request, turn);
};

describe.each(testDatabases)('a change whose problems remain, through the API on $dialect', (database) => {
  let model: OpenAiServer;
  let githubGit: GitHttpServer;
  let github: GithubServer;
  let storage: Storage;
  let quire: QuireUnderTest | undefined;
  let root: string;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    model = await startOpenAiServer(forgetsNavigation);
    githubGit = await startGitHttpServer({ username: 'x-access-token', password: githubToken, privateFetch: true });
    github = await startGithubServer({ tokens: [githubToken] });
    root = mkdtempSync(join(tmpdir(), 'quire-checks-hosts-'));
  });
  afterEach(async () => {
    await quire?.stop();
    quire = undefined;
    await storage?.close();
  });
  afterAll(async () => {
    await Promise.all([model.close(), githubGit.close(), github.close(), receiver.close()]);
    rmSync(root, { recursive: true, force: true });
  });

  async function finishedJob(quire: QuireUnderTest) {
    const created = await quire.create('Add an FAQ page');
    expect(created.status).toBe(201);
    return quire.finished(created.body.id);
  }

  it('GitHub: opens the pull request as a draft whose Checks section lists the problems; the job object, the list, the webhook and the dashboard say so', async () => {
    storage = await database.open();
    const repository = githubGit.createRepository('acme/docs');
    quire = await startQuire(storage, {
      repository,
      grants: { serverCredentials: true },
      config: {
        openaiBaseUrl: model.url,
        githubServerUrl: githubGit.url,
        githubApiUrl: github.url,
        githubToken,
        checkRepairRounds: 1,
        webhooksAllowPrivate: true,
        webhookPollMs: 50,
      },
    });
    const api = (path: string, init: RequestInit = {}) =>
      fetch(`${quire!.url}/v2/agent/${quire!.tenant.project.id}${path}`, {
        ...init,
        headers: { ...quire!.tenant.auth, ...(init.body ? { 'content-type': 'application/json' } : {}) },
      });
    const hook = await api('/webhooks', { method: 'POST', body: JSON.stringify({ url: `${receiver.url}/${database.dialect}`, events: ['job.completed'] }) });
    expect(hook.status).toBe(201);
    const done = await finishedJob(quire);
    const problems = [
      { file: 'docs/faq.md', line: 3, message: expect.stringMatching(/^links to `pricing\.md`, which does not exist/) },
      { file: 'docs/faq.md', line: null, message: 'is a new page that no navigation lists; add it to `mkdocs.yml` so readers can reach it.' },
    ];
    expect(done).toMatchObject({ status: 'completed', error: null, prLink: `${github.url}/acme/docs/pull/1`, draft: true, problems });
    expect(github.pulls).toEqual([expect.objectContaining({ number: 1, head: `quire/${done.id}`, title: 'Add an FAQ page', draft: true })]);
    const body = github.pulls[0].body;
    expect(body).toContain('## Checks\n\n**2 problems remain** after 1 repair round, so this pull request is a draft:');
    expect(body).toContain('- `docs/faq.md` line 3: links to `pricing.md`, which does not exist');
    expect(body).toContain('- `docs/faq.md`: is a new page that no navigation lists; add it to `mkdocs.yml` so readers can reach it.');
    const transcript = await quire.messages(done.id);
    const checks = transcript.filter((message) => message.content.type === 'checks').map((message) => message.content);
    expect(checks).toEqual([
      expect.objectContaining({
        round: 0,
        passed: false,
        problems: [expect.objectContaining({ file: 'docs/faq.md', line: 3 }), expect.objectContaining({ file: 'docs/faq.md' })],
      }),
      expect.objectContaining({ round: 1, passed: false }),
    ]);
    expect(git(join(githubGit.root, 'acme/docs.git'), 'show', `quire/${done.id}:docs/faq.md`)).toContain('# FAQ');

    const list = (await (await api('/jobs')).json()) as { jobs: unknown[] };
    expect(list.jobs).toEqual([expect.objectContaining({ id: done.id, draft: true, problems })]);
    const [delivery] = (await receiver.waitFor(1)).filter((request) => request.path === `/${database.dialect}`);
    expect(JSON.parse(delivery.body)).toMatchObject({ type: 'job.completed', data: { job: { id: done.id, draft: true, problems } } });

    const { cookie } = await signIn(quire.service.app!, storage, quire.tenant.orgId);
    const dashboard = (path: string) =>
      fetch(`${quire!.url}/dashboard/projects/${quire!.tenant.project.id}${path}`, { headers: { cookie } }).then((r) => r.text());
    const listPage = await dashboard('/jobs');
    expect(listPage).toContain('<span class="badge draft">draft</span> <span class="problems">2 problems remain</span>');
    const jobPage = await dashboard(`/jobs/${done.id}`);
    expect(jobPage).toMatch(/<dt>Problems<\/dt><dd>[\s\S]*<li><code>docs\/faq\.md:3<\/code> links to `pricing\.md`/);
    // The transcript's checks events read as sentences and lists, not JSON arrays.
    expect(jobPage).toContain('checked the change: 2 problems found<ul class="problems"><li><code>docs/faq.md:3</code> links to `pricing.md`');
    expect(jobPage).toContain('checked the change again after repair round 1: 2 problems found');
    expect(jobPage).not.toContain('problems: [{');

    // A follow-up fixes everything: the problems are gone, and GitHub keeps the pull request a draft until a person marks it ready.
    expect((await quire.followUp(done.id, 'Fix the problems')).status).toBe(200);
    const fixed = await quire.finished(done.id);
    expect(fixed).toMatchObject({ status: 'completed', prLink: done.prLink, draft: true, problems: [] });
    expect(github.pulls[0].body).toContain('everything passed');
    expect(await dashboard('/jobs')).toContain('<span class="badge draft">draft</span></td>');
  }, 240_000);

  it('a local repository: records the change as a draft with its Checks section and shows both on the change page', async () => {
    storage = await database.open();
    const repository = createBareRepository(join(root, `docs-${database.dialect}.git`));
    quire = await startQuire(storage, { repository, grants: { localDirectories: [root] }, config: { openaiBaseUrl: model.url, checkRepairRounds: 0 } });
    const done = await finishedJob(quire);
    expect(done).toMatchObject({ status: 'completed', prLink: `${quire.url}/dashboard/changes/${done.id}` });
    const description = JSON.parse(git(repository, 'cat-file', 'blob', `refs/quire/changes/${done.id}`)) as { title: string; body: string; draft: boolean };
    expect(description).toMatchObject({
      title: 'Add an FAQ page',
      draft: true,
      body: expect.stringContaining('after 0 repair rounds, so this pull request is a draft'),
    });
    const { cookie } = await signIn(quire.service.app!, storage, quire.tenant.orgId);
    const page = await (await fetch(done.prLink!, { headers: { cookie } })).text();
    expect(page).toContain('<span class="badge draft">Draft</span> Add an FAQ page');
    expect(page).toContain('<h2>Checks</h2>');
    expect(page).toContain('is a new page that no navigation lists');
  }, 120_000);
});
