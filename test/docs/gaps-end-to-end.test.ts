import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey } from '../../src/accounts/keys.ts';
import type { Storage } from '../../src/storage/dialect.ts';
import { startQuire, type JobView, type QuireUnderTest } from '../agent/service-harness.ts';
import { startGitHttpServer, type GitHttpServer } from '../support/git-http-server.ts';
import { git } from '../support/git-repositories.ts';
import { startGithubServer, type GithubServer, type PullRecord } from '../support/github-server.ts';
import { startOpenAiServer, type ChatRequest, type ModelReply, type OpenAiServer } from '../support/openai-server.ts';
import { testDatabases } from '../support/storage.ts';
import type { Static } from 'typebox';
import type { Gap } from '../../src/docs/gaps/schemas.ts';

const githubToken = 'ghp_gapsE2eToken0123456789abcdefABCDEF';
const chrome = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';
const claudeBot = 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ClaudeBot/1.0; +claudebot@anthropic.com)';
const gptBot = 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; GPTBot/1.2; +https://openai.com/gptbot';

const files = {
  'README.md': '# Acme docs\n',
  'mkdocs.yml': 'site_name: Acme\nnav:\n  - Home: index.md\n  - Guide: guide.md\n',
  'docs/index.md': '# Welcome\n\nAcme keeps your widgets in order.\n',
  'docs/guide.md': '# Guide\n\n## Install\n\nRun `acme install`.\n',
};

/** A gap as the API answers it (the route's own response schema). */
type GapJson = Static<typeof Gap>;

const text = (request: ChatRequest) => JSON.stringify(request.messages);

/**
 * One scripted model for the assistant and the agent. The assistant (it has record_outcome) searches
 * and finds nothing to answer with. The agent writes the page its prompt asks for, then describes it.
 */
function script(request: ChatRequest, turn: number): ModelReply {
  if (request.tools?.some((tool) => tool.function.name === 'record_outcome')) {
    const replies: ModelReply[] = [
      { text: '', toolCalls: [{ name: 'search_docs', arguments: { query: 'rate limits' } }] },
      { text: 'The docs do not say.', toolCalls: [{ name: 'record_outcome', arguments: { resolution: 'unanswered', sources: [] } }] },
    ];
    return replies[turn] ?? { text: '' };
  }
  const page = text(request).includes('rate limit')
    ? { path: 'docs/limits.md', title: 'Rate limits', content: '# Rate limits\n\nThe API takes 100 requests a minute per key.\n' }
    : { path: 'docs/webhooks.md', title: 'Webhooks', content: '# Webhooks\n\nA failed delivery is retried 5 times.\n' };
  if (turn === 0) {
    return {
      text: '',
      toolCalls: [
        { name: 'write_file', arguments: { path: page.path, content: page.content } },
        {
          name: 'write_file',
          arguments: {
            path: 'mkdocs.yml',
            content: `site_name: Acme\nnav:\n  - Home: index.md\n  - Guide: guide.md\n  - ${page.title}: ${page.path.slice('docs/'.length)}\n`,
          },
        },
      ],
    };
  }
  return { text: `Document ${page.title.toLowerCase()}\n\n- ${page.path}: new` };
}

/**
 * The docs gaps loop end to end, as a team meets it: readers' failed searches, unanswered assistant
 * questions, "not helpful" feedback and AI agents' 404s on a real docs repository behind git smart
 * HTTP; the gap ranked first becomes an agent job (scripted model) that opens a pull request on a
 * local GitHub REST server; the pull request is merged there and in the git remote (a merge commit,
 * then a squash merge for a second gap); the docs index refresh marks the gap fixed, and evidence
 * after the fix is counted in `after`.
 */
describe.each(testDatabases)('docs gaps end to end on $dialect', (database) => {
  let model: OpenAiServer;
  let remote: GitHttpServer;
  let github: GithubServer;
  let storage: Storage;
  let quire: QuireUnderTest;
  let bare: string;
  let assistantKey: string;

  /** Merges a pull request in the bare repository as GitHub would: a merge commit, or one squashed commit. */
  async function mergeInRemote(pull: PullRecord, method: 'merge' | 'squash' | 'rebase'): Promise<string> {
    const work = mkdtempSync(join(tmpdir(), 'quire-gaps-merge-'));
    try {
      git(work, 'clone', '--quiet', '--branch', pull.base, bare, '.');
      git(work, 'fetch', '--quiet', 'origin', pull.head);
      if (method === 'squash') {
        git(work, 'merge', '--quiet', '--squash', 'FETCH_HEAD');
        git(work, 'commit', '--quiet', '--message', `${pull.title} (#${pull.number})`);
      } else {
        git(work, 'merge', '--quiet', '--no-ff', '--message', `Merge pull request #${pull.number}`, 'FETCH_HEAD');
      }
      git(work, 'push', '--quiet', 'origin', pull.base);
      return git(work, 'rev-parse', 'HEAD').trim();
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  }

  beforeAll(async () => {
    model = await startOpenAiServer(script);
    remote = await startGitHttpServer({ username: 'x-access-token', password: githubToken, privateFetch: true });
    github = await startGithubServer({ tokens: [githubToken], merge: (pull, method) => mergeInRemote(pull, method) });
    const repository = remote.createRepository('acme/docs', files);
    bare = join(remote.root, 'acme/docs.git');
    storage = await database.open();
    quire = await startQuire(storage, {
      repository,
      grants: { serverCredentials: true },
      config: {
        openaiBaseUrl: model.url,
        githubServerUrl: remote.url,
        githubApiUrl: github.url,
        githubToken,
        analyticsRateLimit: 10_000,
      },
    });
    ({ key: assistantKey } = await createKey(storage.db, quire.tenant.orgId, { kind: 'assistant', projectIds: [quire.tenant.project.id] }));
  });

  afterAll(async () => {
    await quire?.stop();
    await storage?.close();
    await Promise.all([model?.close(), remote?.close(), github?.close()]);
  });

  const projectPath = () => `/v1/analytics/${quire.tenant.project.id}`;
  async function api<Body>(method: string, path: string, body?: unknown): Promise<{ status: number; body: Body }> {
    const response = await fetch(`${quire.url}${path}`, {
      method,
      headers: { ...quire.tenant.auth, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    return { status: response.status, body: (await response.json()) as Body };
  }
  const events = async (list: unknown[]) => {
    const answer = await api<{ rejected: number }>('POST', `${projectPath()}/events`, { events: list });
    expect(answer.status).toBe(202);
    expect(answer.body.rejected).toBe(0);
  };
  const gaps = async () => {
    const answer = await api<{ gaps: GapJson[] }>('GET', `${projectPath()}/gaps?status=open,in_progress,fixed`);
    expect(answer.status).toBe(200);
    return answer.body.gaps;
  };
  const search = (query: string, ip: string, userAgent = chrome) => ({ kind: 'search', query, hits: 0, ip, userAgent });
  async function until<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const value = await read();
      if (done(value)) return value;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(value)}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  /** Refreshes the docs index (as `POST /v1/docs/{projectId}/refresh` does) and waits for the build of the ref's newest commit. */
  async function refreshIndex() {
    const head = git(bare, 'rev-parse', 'main').trim();
    expect((await api('POST', `/v1/docs/${quire.tenant.project.id}/refresh`)).status).toBe(202);
    await until(
      `the docs index of ${head}`,
      async () => (await api<{ status: string; commit?: string | null }>('GET', `/v1/docs/${quire.tenant.project.id}`)).body,
      (state) => state.status === 'ready' && state.commit === head,
    );
  }
  /** Asks the assistant a question its scripted model leaves unanswered. */
  async function askAssistant(question: string, fingerprint: string) {
    const response = await fetch(`${quire.url}/discovery/v1/assistant/${quire.tenant.project.id}/message`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${assistantKey}` },
      body: JSON.stringify({ fp: fingerprint, messages: [{ role: 'user', content: question }] }),
    });
    expect(response.status).toBe(200);
    await response.text();
  }
  async function fixWithAgent(gap: GapJson, method: 'merge' | 'squash'): Promise<JobView> {
    const created = await api<JobView>('POST', `${projectPath()}/gaps/${gap.id}/job`);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const job = await quire.finished(created.body.id);
    expect(job).toMatchObject({ status: 'completed', prLink: expect.stringMatching(/\/acme\/docs\/pull\/\d+$/) });
    const number = Number(job.prLink!.split('/').at(-1));
    expect(github.pulls.find((pull) => pull.number === number)).toMatchObject({ head: `quire/${job.id}`, base: 'main', state: 'open' });
    // The index builds while the pull request is open: not fixed yet.
    await refreshIndex();
    expect((await gaps()).find((one) => one.id === gap.id)).toMatchObject({ status: 'in_progress', jobId: job.id, prLink: job.prLink, fixedAt: null });
    // Merged on the GitHub server, which merges it in the git remote.
    const merged = await fetch(`${github.url}/repos/acme/docs/pulls/${number}/merge`, {
      method: 'PUT',
      headers: { authorization: `token ${githubToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ merge_method: method }),
    });
    expect(merged.status).toBe(200);
    const { sha } = (await merged.json()) as { sha: string };
    expect(git(bare, 'rev-parse', 'main').trim()).toBe(sha);
    return job;
  }

  it('turns what readers and agents fail to find into a merged fix, and shows whether it worked', async () => {
    // Docs index first: the assistant answers from it.
    await refreshIndex();
    await askAssistant('What are the rate limits?', 'reader-a');
    await askAssistant('what are the rate limits', 'reader-b');
    await events([
      search('rate limit', '198.51.100.1'),
      search('rate limits', '198.51.100.2'),
      search('ratelimit', '198.51.100.3'),
      search('rate limits', '216.73.216.4', claudeBot),
      {
        kind: 'feedback',
        source: 'thumbs_only',
        path: '/guide',
        helpful: false,
        comment: 'What are the rate limits?',
        ip: '198.51.100.5',
        userAgent: chrome,
      },
      search('webhook retries', '198.51.100.6'),
      search('webhook retry', '198.51.100.7'),
      // AI agents fetch a page that does not exist.
      ...Array.from({ length: 3 }, () => ({ path: '/api/rate-limits', status: 404, ip: '216.73.216.5', userAgent: claudeBot })),
      { path: '/api/rate-limits', status: 404, ip: '20.171.207.9', userAgent: gptBot },
    ]);
    const listed = await until(
      'the unanswered questions in the gaps',
      () => gaps(),
      (list) => list[0]?.evidence.unanswered === 2,
    );
    const [first] = listed;
    // The feedback's comment asks the same, on the Guide page: readers fail on that page.
    expect(first).toMatchObject({
      kind: 'unclear',
      status: 'open',
      evidence: { unanswered: 2, searches: 4, feedback: 1, notFound: 0 },
      // Assistant readers count by their fingerprint, in the total only: the assistant does not see a user agent.
      visitors: { human: 4, ai: 1, total: 7 },
      paths: ['/guide'],
      jobId: null,
      after: null,
    });
    const broken = listed.find((gap) => gap.paths.includes('/api/rate-limits'))!;
    expect(broken).toMatchObject({ kind: 'broken', evidence: { notFound: 4 }, visitors: { human: 0, ai: 2, total: 2 } });
    const webhooks = listed.find((gap) => gap.examples.includes('webhook retries'))!;
    expect(webhooks).toMatchObject({ kind: 'missing', evidence: { searches: 2 }, visitors: { total: 2 } });

    // The first gap: a merge commit.
    const job = await fixWithAgent(first!, 'merge');
    const requested = model.requests.find((request) => !request.tools?.some((tool) => tool.function.name === 'record_outcome'))!;
    // The job's prompt quotes the evidence.
    expect(text(requested)).toMatch(/What are the rate limits\?[^]*smallest change/);
    await refreshIndex();
    const fixed = (
      await until(
        'the fix',
        () => gaps(),
        (list) => list.find((gap) => gap.id === first!.id)?.status === 'fixed',
      )
    ).find((gap) => gap.id === first!.id)!;
    expect(fixed).toMatchObject({
      status: 'fixed',
      jobId: job.id,
      prLink: job.prLink,
      evidence: { unanswered: 2, searches: 4, feedback: 1 },
      after: { unanswered: 0, searches: 0, feedback: 0, notFound: 0 },
    });
    expect(Date.parse(fixed.fixedAt!)).toBeGreaterThan(0);
    expect(git(bare, 'show', 'main:docs/limits.md')).toContain('100 requests a minute');

    // The second gap: a squash merge leaves none of the job's commits on main; the change is there all the same.
    const squashed = await fixWithAgent(webhooks, 'squash');
    expect(() => git(bare, 'merge-base', '--is-ancestor', git(bare, 'rev-parse', `quire/${squashed.id}`).trim(), 'main')).toThrow();
    await refreshIndex();
    const squashFixed = await until(
      'the squashed fix',
      () => gaps(),
      (list) => list.find((gap) => gap.id === webhooks.id)?.status === 'fixed',
    );
    expect(squashFixed.find((gap) => gap.id === webhooks.id)).toMatchObject({ status: 'fixed', jobId: squashed.id });

    // Evidence after the fix counts in `after`; the evidence frozen at the fix stays.
    await events([search('rate limits', '198.51.100.40'), search('webhook retries', '198.51.100.41')]);
    const after = await until(
      'the evidence after the fix',
      () => gaps(),
      (list) => list.find((gap) => gap.id === first!.id)?.after?.searches === 1,
    );
    expect(after.find((gap) => gap.id === first!.id)).toMatchObject({ evidence: { searches: 4 }, after: { searches: 1, unanswered: 0 } });
    expect(after.find((gap) => gap.id === webhooks.id)).toMatchObject({ evidence: { searches: 2 }, after: { searches: 1 } });
    expect(after.find((gap) => gap.id === broken.id)).toMatchObject({ status: 'open' });
  }, 240_000);
});
