import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createKey, revokeKey } from '../../../src/accounts/keys.ts';
import type { Storage } from '../../../src/storage/dialect.ts';
import { createTenant, type Tenant } from '../../support/app.ts';
import { startGitHttpServer, type GitHttpServer } from '../../support/git-http-server.ts';
import { docsFiles, git } from '../../support/git-repositories.ts';
import { startGithubServer, type GithubServer } from '../../support/github-server.ts';
import { scriptedTurns, startOpenAiServer, type OpenAiServer } from '../../support/openai-server.ts';
import { testDatabases } from '../../support/storage.ts';
import { endSessionLease, renewSessionLease } from '../../../src/workspace/session-lease.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../../support/webhook-receiver.ts';
import { startQuire, type QuireUnderTest } from '../../agent/service-harness.ts';

const githubToken = 'ghp_mcpTestToken0123456789abcdefABCDEF';

type Result = CallToolResult & { structuredContent?: Record<string, unknown> };

/** An MCP client as an agent runs it: the SDK's own client over streamable HTTP, with an admin key as Bearer. */
async function connect(url: string, key: string): Promise<Client> {
  const client = new Client({ name: 'test-agent', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
  return client;
}

const call = (client: Client, name: string, args: Record<string, unknown> = {}) => client.callTool({ name, arguments: args }) as Promise<Result>;
const textOf = (result: Result) => (result.content as { type: string; text: string }[]).map((part) => part.text).join('\n');

describe.each(testDatabases)('the admin MCP server on $dialect', (database) => {
  let model: OpenAiServer;
  let remote: GitHttpServer;
  let github: GithubServer;
  let hooks: WebhookReceiver;
  let storage: Storage;
  let quire: QuireUnderTest;
  let client: Client;
  let bare: string;
  let projectId: string;

  beforeAll(async () => {
    model = await startOpenAiServer(scriptedTurns([], 'Nothing to change'));
    remote = await startGitHttpServer({ username: 'x-access-token', password: githubToken, privateFetch: true });
    github = await startGithubServer({ tokens: [githubToken] });
    hooks = await startWebhookReceiver();
    const repository = remote.createRepository('acme/docs', { ...docsFiles, 'docs/secret.md': '# Secret\n' }, { 'docs/leak.md': '/etc/passwd' });
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
        agentMaxFileBytes: 20_000,
        webhooksAllowPrivate: true,
      },
    });
    projectId = quire.tenant.project.id;
    client = await connect(quire.url, quire.tenant.key);
  });

  afterAll(async () => {
    await client?.close();
    await quire?.stop();
    await storage?.close();
    await Promise.all([model?.close(), remote?.close(), github?.close(), hooks?.close()]);
  });

  const api = async (method: string, path: string, body?: unknown, key = quire.tenant.key) => {
    const response = await fetch(`${quire.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };

  async function checkout(args: Record<string, unknown> = {}, on = client) {
    const result = await call(on, 'checkout', { projectId, ...args });
    expect(result.isError, textOf(result)).toBeFalsy();
    return result.structuredContent as { sessionId: string; jobId: string; branch: string };
  }

  it('lists the tools with descriptions that say what to call next', async () => {
    const { tools } = await client.listTools();
    const names = tools.map((tool) => tool.name);
    for (const name of [
      'list_projects',
      'checkout',
      'list_files',
      'read_file',
      'search',
      'write_file',
      'edit_file',
      'delete_file',
      'move_file',
      'diff',
      'check',
      'save',
      'create_job',
      'visitors',
      'agents',
      'searches',
      'feedback',
      'gaps',
    ]) {
      expect(names).toContain(name);
    }
    expect(tools.find((tool) => tool.name === 'checkout')?.description).toMatch(/Next:/);
    expect(tools.find((tool) => tool.name === 'edit_file')?.inputSchema.required).toEqual(
      expect.arrayContaining(['sessionId', 'path', 'old_string', 'new_string']),
    );
  }, 180_000);

  it('checks out, reads, edits, fixes what check reports, saves a pull request, and updates it from a second session on the same branch', async () => {
    const listed = await call(client, 'list_projects');
    expect(listed.structuredContent).toEqual({
      projects: [expect.objectContaining({ id: projectId, repository: expect.stringContaining('acme/docs.git'), ref: 'main' })],
    });
    expect(JSON.parse(textOf(listed))).toEqual(listed.structuredContent);

    const session = await checkout();
    expect(session.branch).toBe(`quire/${session.jobId}`);
    expect(textOf(await call(client, 'list_files', { sessionId: session.sessionId, path: 'docs' }))).toContain('docs/guide.md');
    expect(textOf(await call(client, 'read_file', { sessionId: session.sessionId, path: 'docs/guide.md' }))).toContain('Run `acme install`.');
    expect(textOf(await call(client, 'search', { sessionId: session.sessionId, pattern: 'acme install' }))).toContain('docs/guide.md:');
    const unread = await call(client, 'edit_file', { sessionId: session.sessionId, path: 'docs/index.md', old_string: 'Welcome', new_string: 'Hello' });
    expect(unread.isError).toBe(true);
    expect(textOf(unread)).toMatch(/read "docs\/index.md" with read_file before editing it/);

    const edited = await call(client, 'edit_file', {
      sessionId: session.sessionId,
      path: 'docs/guide.md',
      old_string: 'Run `acme install`.',
      new_string: 'Run `acme install`, then read [the setup](setup.md).',
    });
    expect(edited.isError, textOf(edited)).toBeFalsy();
    expect(textOf(await call(client, 'diff', { sessionId: session.sessionId }))).toContain('+Run `acme install`, then read [the setup](setup.md).');

    const checked = await call(client, 'check', { sessionId: session.sessionId });
    const problems = (checked.structuredContent as { problems: { file: string; message: string }[] }).problems;
    expect(problems).toEqual([expect.objectContaining({ file: 'docs/guide.md', message: expect.stringContaining('setup.md') })]);

    await call(client, 'write_file', { sessionId: session.sessionId, path: 'docs/setup.md', content: '# Setup\n\nInstall, then configure.\n' });
    await call(client, 'read_file', { sessionId: session.sessionId, path: 'mkdocs.yml' });
    await call(client, 'edit_file', {
      sessionId: session.sessionId,
      path: 'mkdocs.yml',
      old_string: '  - Guide: guide.md\n',
      new_string: '  - Guide: guide.md\n  - Setup: setup.md\n',
    });
    expect((await call(client, 'check', { sessionId: session.sessionId })).structuredContent).toEqual({ problems: [] });

    const saved = await call(client, 'save', { sessionId: session.sessionId, title: 'Document the setup', body: 'Adds a setup page.' });
    expect(saved.isError, textOf(saved)).toBeFalsy();
    expect(saved.structuredContent).toMatchObject({
      id: session.jobId,
      status: 'completed',
      origin: 'mcp',
      prLink: `${github.url}/acme/docs/pull/1`,
      draft: false,
      problems: [],
    });
    expect(github.pulls).toEqual([expect.objectContaining({ number: 1, head: session.branch, base: 'main', title: 'Document the setup', draft: false })]);
    expect(git(bare, 'show', `${session.branch}:docs/setup.md`)).toBe('# Setup\n\nInstall, then configure.\n');

    // The session is a job: in the list, with its transcript, redacted like the agent's.
    const jobs = await api('GET', `/v2/agent/${projectId}/jobs`);
    expect(jobs.body.jobs).toEqual(
      expect.arrayContaining([expect.objectContaining({ id: session.jobId, origin: 'mcp', status: 'completed', prLink: saved.structuredContent?.prLink })]),
    );
    // Tool calls' entries are written in batches just after their answers: the save's own comes within a moment.
    const messages = await vi.waitFor(async () => {
      const transcript = await api('GET', `/v2/agent/${projectId}/job/${session.jobId}/messages`);
      const listed = transcript.body.messages as { role: string; content: Record<string, unknown> }[];
      expect(listed.filter((message) => message.role === 'tool').map((message) => message.content.tool)).toEqual(
        expect.arrayContaining(['checkout', 'list_files', 'read_file', 'edit_file', 'check', 'save']),
      );
      return listed;
    });
    expect(messages.some((message) => message.content.type === 'change-pushed')).toBe(true);
    expect(JSON.stringify(messages)).not.toContain(githubToken);

    // A second session continues the branch and updates the same pull request.
    const second = await checkout({ branch: session.branch });
    expect(second.jobId).toBe(session.jobId);
    expect(second.sessionId).not.toBe(session.sessionId);
    expect((await call(client, 'list_files', { sessionId: session.sessionId })).isError, 'the first session was handed over').toBe(true);
    await call(client, 'read_file', { sessionId: second.sessionId, path: 'docs/setup.md' });
    await call(client, 'edit_file', { sessionId: second.sessionId, path: 'docs/setup.md', old_string: 'configure.', new_string: 'configure and run.' });
    const updated = await call(client, 'save', { sessionId: second.sessionId, body: 'Says what to run.' });
    expect(updated.structuredContent).toMatchObject({ id: session.jobId, status: 'completed', prLink: `${github.url}/acme/docs/pull/1` });
    expect(github.pulls).toHaveLength(1);
    expect(github.pulls[0].body).toContain('Says what to run.');
    expect(git(bare, 'show', `${session.branch}:docs/setup.md`)).toBe('# Setup\n\nInstall, then configure and run.\n');
  }, 180_000);

  it('fetches the remote once per checkout, while it writes the job, and refuses a checkout over the hourly job limit', async () => {
    await checkout();
    const before = remote.requests.length;
    const session = await checkout();
    const asked = remote.requests.slice(before).filter((request) => request.method === 'POST' && request.service === 'git-upload-pack');
    // The remote did not move: one listing of its refs, and no second fetch when the workspace opens.
    expect(asked).toHaveLength(1);
    expect(textOf(await call(client, 'read_file', { sessionId: session.sessionId, path: 'docs/guide.md' }))).toContain('# Guide');

    const config = quire.service.context.config as { jobRateLimit: number };
    const limit = config.jobRateLimit;
    const jobs = async () => ((await api('GET', `/v2/agent/${projectId}/jobs?limit=100`)).body.jobs as unknown[]).length;
    const listed = await jobs();
    config.jobRateLimit = 1;
    try {
      const refused = await call(client, 'checkout', { projectId });
      expect(refused.isError).toBe(true);
      expect(textOf(refused)).toMatch(/used its 1 agent job requests/);
      expect(await jobs()).toBe(listed);
    } finally {
      config.jobRateLimit = limit;
    }
  });

  it('opens a draft while check still reports problems, unless the caller overrides it', async () => {
    const session = await checkout();
    await call(client, 'write_file', { sessionId: session.sessionId, path: 'docs/broken.md', content: '# Broken\n\n[nowhere](nowhere.md)\n' });
    const draft = await call(client, 'save', { sessionId: session.sessionId, title: 'Broken page' });
    expect(draft.structuredContent).toMatchObject({ draft: true, problems: expect.arrayContaining([expect.objectContaining({ file: 'docs/broken.md' })]) });
    expect(github.pulls.find((pull) => pull.head === session.branch)?.draft).toBe(true);
    const other = await checkout();
    await call(client, 'write_file', { sessionId: other.sessionId, path: 'docs/broken2.md', content: '# Broken\n\n[nowhere](nowhere.md)\n' });
    const ready = await call(client, 'save', { sessionId: other.sessionId, title: 'Broken on purpose', draft: false });
    expect(ready.structuredContent).toMatchObject({ draft: false });
    expect(github.pulls.find((pull) => pull.head === other.branch)?.draft).toBe(false);
  }, 180_000);

  it('refuses paths outside the workspace, .git/, symbolic links that leave it and huge writes, with readable errors, and pushes nothing', async () => {
    const session = await checkout();
    const refusals = [
      await call(client, 'read_file', { sessionId: session.sessionId, path: '../../../../etc/passwd' }),
      await call(client, 'read_file', { sessionId: session.sessionId, path: '/etc/passwd' }),
      await call(client, 'read_file', { sessionId: session.sessionId, path: '.git/config' }),
      await call(client, 'write_file', { sessionId: session.sessionId, path: '.git/hooks/pre-commit', content: '#!/bin/sh\n' }),
      await call(client, 'read_file', { sessionId: session.sessionId, path: 'docs/leak.md' }),
      await call(client, 'write_file', { sessionId: session.sessionId, path: 'docs/leak.md', content: 'x' }),
      await call(client, 'write_file', { sessionId: session.sessionId, path: 'docs/huge.md', content: 'x'.repeat(30_000) }),
      await call(client, 'move_file', { sessionId: session.sessionId, from: 'docs/guide.md', to: '../outside.md' }),
    ];
    for (const refused of refusals) {
      expect(refused.isError, textOf(refused)).toBe(true);
      expect(textOf(refused)).toMatch(/^Error: .{20,}/);
      expect(textOf(refused)).not.toContain('root:x:0');
    }
    expect(textOf(refusals[6])).toMatch(/QUIRE_AGENT_MAX_FILE_BYTES/);
    const saved = await call(client, 'save', { sessionId: session.sessionId });
    expect(saved.structuredContent).toMatchObject({ prLink: null, status: 'completed' });
    expect(git(bare, 'branch', '--list', session.branch)).toBe('');
  }, 180_000);

  it('answers the docs gaps as the API does, with its limits, and reads no more than the key may', async () => {
    const chrome = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';
    const searches = ['webhook retries', 'webhook retry', 'retries of webhooks'].map((query, index) => ({
      kind: 'search',
      query,
      hits: 0,
      ip: `198.51.100.${60 + index}`,
      userAgent: chrome,
    }));
    expect((await api('POST', `/v1/analytics/${projectId}/events`, { events: searches })).status).toBe(202);
    const answer = await call(client, 'gaps', { projectId, limit: 5 });
    expect(answer.isError, textOf(answer)).toBeFalsy();
    const { gaps } = answer.structuredContent as { gaps: { id: string; kind: string; evidence: { searches: number }; visitors: { total: number } }[] };
    const fromApi = (await api('GET', `/v1/analytics/${projectId}/gaps?limit=5`)).body;
    expect(answer.structuredContent).toEqual(fromApi);
    expect(JSON.parse(textOf(answer))).toEqual(fromApi);
    expect(gaps[0]).toMatchObject({ kind: 'missing', evidence: { searches: 3 }, visitors: { total: 3 } });
    // Past the operation's own limit, the tool refuses before calling it.
    const tooMany = await call(client, 'gaps', { projectId, limit: 101 });
    expect(tooMany.isError).toBe(true);
    const { tools } = await client.listTools();
    // Each analytics tool offers the limits its operation accepts, so a call the schema lets through is answered.
    for (const tool of tools.filter((one) => ['visitors', 'agents', 'searches', 'feedback', 'gaps'].includes(one.name))) {
      const maximum = (tool.inputSchema.properties as { limit: { maximum: number } }).limit.maximum;
      const limited = await call(client, tool.name, { projectId, limit: maximum });
      expect(limited.isError, `${tool.name}: ${textOf(limited)}`).toBeFalsy();
    }
    expect(tools.find((tool) => tool.name === 'gaps')?.description).toMatch(/checkout[^]*create_job/);
    const reader = await createKey(storage.db, quire.tenant.orgId, { scopes: ['read'] });
    const readOnly = await connect(quire.url, reader.key);
    try {
      expect((await call(readOnly, 'gaps', { projectId })).structuredContent).toEqual((await api('GET', `/v1/analytics/${projectId}/gaps`)).body);
    } finally {
      await readOnly.close();
    }
  }, 180_000);

  it('shows another organization nothing: its projects, sessions and jobs are not found', async () => {
    const session = await checkout();
    const other: Tenant = await createTenant(storage, { project: { repository: 'https://github.com/other/docs' } });
    const intruder = await connect(quire.url, other.key);
    try {
      expect((await call(intruder, 'list_projects')).structuredContent).toEqual({ projects: [expect.objectContaining({ id: other.project.id })] });
      const refused = await call(intruder, 'checkout', { projectId });
      expect(refused.isError).toBe(true);
      expect(textOf(refused)).toMatch(/^Project prj_\w+ not found/);
      const stolen = await call(intruder, 'read_file', { sessionId: session.sessionId, path: 'docs/guide.md' });
      expect(stolen.isError).toBe(true);
      expect(textOf(stolen)).toMatch(/not found/);
      const job = await call(intruder, 'create_job', { projectId, prompt: 'Steal' });
      expect(textOf(job)).toMatch(/not found/);
      expect(textOf(await call(intruder, 'visitors', { projectId }))).toMatch(/not found/);
      expect(textOf(await call(intruder, 'gaps', { projectId }))).toMatch(/not found/);
      // The session is still the owner's.
      expect((await call(client, 'list_files', { sessionId: session.sessionId, path: 'docs' })).isError).toBeFalsy();
    } finally {
      await intruder.close();
    }
  }, 180_000);

  it('refuses a revoked key at the next call, and a read-only key anything that changes', async () => {
    const { key, row } = await createKey(storage.db, quire.tenant.orgId, { scopes: ['read', 'write'] });
    const revocable = await connect(quire.url, key);
    const session = await checkout({}, revocable);
    await call(revocable, 'write_file', { sessionId: session.sessionId, path: 'docs/late.md', content: '# Late\n' });
    await revokeKey(storage.db, quire.tenant.orgId, row.id);
    await expect(call(revocable, 'save', { sessionId: session.sessionId })).rejects.toThrow(/401|revoked|Unauthorized/i);
    expect(git(bare, 'branch', '--list', session.branch)).toBe('');
    await revocable.close().catch(() => undefined);

    const reader = await createKey(storage.db, quire.tenant.orgId, { scopes: ['read'] });
    const readOnly = await connect(quire.url, reader.key);
    try {
      const refused = await call(readOnly, 'checkout', { projectId });
      expect(refused.isError).toBe(true);
      expect(textOf(refused)).toMatch(/lacks the "write" scope/);
      expect((await call(readOnly, 'list_projects')).isError).toBeFalsy();
    } finally {
      await readOnly.close();
    }
  }, 180_000);

  it('keeps two sessions, a session and a job, and two racing saves of one session apart, losing nothing', async () => {
    const [first, second] = await Promise.all([checkout(), checkout()]);
    expect(first.branch).not.toBe(second.branch);
    await Promise.all([
      call(client, 'write_file', { sessionId: first.sessionId, path: 'docs/first.md', content: '# First\n' }),
      call(client, 'write_file', { sessionId: second.sessionId, path: 'docs/second.md', content: '# Second\n' }),
    ]);
    const job = await call(client, 'create_job', { projectId, prompt: 'Tidy the guide' });
    expect(job.structuredContent).toMatchObject({ status: 'active', origin: 'api' });
    const [one, two] = await Promise.all([
      call(client, 'save', { sessionId: first.sessionId, title: 'First' }),
      call(client, 'save', { sessionId: second.sessionId, title: 'Second' }),
    ]);
    expect(one.structuredContent?.prLink).not.toBe(two.structuredContent?.prLink);
    expect(git(bare, 'ls-tree', '--name-only', first.branch, 'docs/')).toContain('docs/first.md');
    expect(git(bare, 'ls-tree', '--name-only', first.branch, 'docs/')).not.toContain('docs/second.md');
    expect(git(bare, 'ls-tree', '--name-only', second.branch, 'docs/')).toContain('docs/second.md');
    expect(git(bare, 'ls-tree', '--name-only', second.branch, 'docs/')).not.toContain('docs/first.md');

    // Two saves of one session at once: they take turns, one pull request holds both files.
    await call(client, 'write_file', { sessionId: first.sessionId, path: 'docs/third.md', content: '# Third\n' });
    const racing = call(client, 'save', { sessionId: first.sessionId });
    await call(client, 'write_file', { sessionId: first.sessionId, path: 'docs/fourth.md', content: '# Fourth\n' });
    const [a, b] = await Promise.all([racing, call(client, 'save', { sessionId: first.sessionId })]);
    expect(a.isError, textOf(a)).toBeFalsy();
    expect(b.isError, textOf(b)).toBeFalsy();
    expect(a.structuredContent?.prLink).toBe(one.structuredContent?.prLink);
    expect(b.structuredContent?.prLink).toBe(one.structuredContent?.prLink);
    expect(git(bare, 'ls-tree', '--name-only', first.branch, 'docs/')).toEqual(expect.stringContaining('docs/fourth.md'));
    expect(git(bare, 'ls-tree', '--name-only', first.branch, 'docs/')).toEqual(expect.stringContaining('docs/third.md'));
    expect(github.pulls.filter((pull) => pull.head === first.branch)).toHaveLength(1);
    const jobId = (job.structuredContent as { id: string }).id;
    const created = await api('GET', `/v2/agent/${projectId}/job/${jobId}`);
    expect(created.body.id).toBe(jobId);
  }, 180_000);

  it('fires the jobs’ webhooks, ends on cancel, and ends idle sessions, sweeping their workspace', async () => {
    const endpoint = await api('POST', `/v2/agent/${projectId}/webhooks`, { url: `${hooks.url}/quire` });
    expect(endpoint.status, JSON.stringify(endpoint.body)).toBe(201);
    const saved = await checkout();
    await call(client, 'write_file', { sessionId: saved.sessionId, path: 'docs/hooked.md', content: '# Hooked\n' });
    await call(client, 'save', { sessionId: saved.sessionId });
    // Delivered to the endpoint, signed, as a job's are.
    const types = (jobId: string) =>
      hooks.received
        .map((request) => JSON.parse(request.body) as { type: string; data: { job: { id: string; origin: string } } })
        .filter((event) => event.data.job.id === jobId)
        .map((event) => event.type);
    const delivered = async (jobId: string, type: string) => {
      for (const deadline = Date.now() + 20_000; !types(jobId).includes(type) && Date.now() < deadline;)
        await new Promise((resolve) => setTimeout(resolve, 50));
      return types(jobId);
    };
    await delivered(saved.jobId, 'pull_request.opened');
    expect(types(saved.jobId)).toEqual(expect.arrayContaining(['job.created', 'job.completed', 'pull_request.opened']));
    expect(hooks.received[0].headers['webhook-signature']).toMatch(/^v1,/);

    const cancelled = await checkout();
    expect((await api('POST', `/v2/agent/${projectId}/job/${cancelled.jobId}/cancel`)).body).toMatchObject({ status: 'failed' });
    const after = await call(client, 'list_files', { sessionId: cancelled.sessionId });
    expect(after.isError).toBe(true);
    expect(textOf(after)).toMatch(/not found|ended/);
    expect(await delivered(cancelled.jobId, 'job.cancelled')).toEqual(expect.arrayContaining(['job.created', 'job.cancelled']));

    const idle = await checkout();
    await call(client, 'write_file', { sessionId: idle.sessionId, path: 'docs/unsaved.md', content: '# Unsaved\n' });
    const workspace = join(quire.dataDir, 'workspaces', idle.branch.replace('/', '-'));
    expect(existsSync(workspace)).toBe(true);
    // Leased while open, so that a worker process's sweep leaves it alone (workspace/sweep.ts).
    expect(existsSync(`${workspace}.session`)).toBe(true);
    expect(await quire.service.context.adminSessions.endIdle(Date.now() + 61 * 60_000)).toBeGreaterThanOrEqual(1);
    expect(existsSync(workspace)).toBe(false);
    expect(existsSync(`${workspace}.session`)).toBe(false);
    const ended = await api('GET', `/v2/agent/${projectId}/job/${idle.jobId}`);
    expect(ended.body).toMatchObject({ status: 'failed', error: expect.stringMatching(/idle for 60 minutes.*Edits not saved were discarded/) });
    expect(await delivered(idle.jobId, 'job.failed')).toEqual(['job.created', 'job.failed']);
    // The calls answered before the session ended are in its transcript, before the end.
    const entries = (await api('GET', `/v2/agent/${projectId}/job/${idle.jobId}/messages`)).body.messages as {
      role: string;
      content: Record<string, unknown>;
    }[];
    const written = entries.findIndex((entry) => entry.role === 'tool' && entry.content.tool === 'write_file');
    expect(written).toBeGreaterThan(-1);
    expect(written).toBeLessThan(entries.findIndex((entry) => entry.content.type === 'session-ended'));
    expect((await call(client, 'read_file', { sessionId: idle.sessionId, path: 'docs/index.md' })).isError).toBe(true);
  }, 180_000);

  it('refuses a follow-up while a session has the job’s branch checked out after its save, and runs it once the session ended', async () => {
    // Quire's agent did a job; a session continues its branch and saves, which completes the job again.
    const created = await api('POST', `/v2/agent/${projectId}/job`, { prompt: 'Look over the guide' });
    const job = async () => (await api('GET', `/v2/agent/${projectId}/job/${created.body.id as string}`)).body;
    await vi.waitFor(async () => expect(await job()).toMatchObject({ status: 'completed' }), { timeout: 30_000, interval: 100 });
    const session = await checkout({ branch: `quire/${created.body.id as string}` });
    expect(session.jobId).toBe(created.body.id);
    await call(client, 'write_file', { sessionId: session.sessionId, path: 'docs/held.md', content: '# Held\n' });
    expect((await call(client, 'save', { sessionId: session.sessionId, title: 'Held' })).structuredContent).toMatchObject({ status: 'completed' });
    const followUp = () => api('POST', `/v2/agent/${projectId}/job/${session.jobId}/message`, { prompt: 'Link the new page from the guide' });
    const refused = await followUp();
    expect(refused.status).toBe(409);
    expect(refused.body).toEqual({
      code: 'conflict',
      error: `An admin MCP session has the job's branch ${session.branch} checked out, and stays open after its saves until it is idle for 60 minutes (QUIRE_MCP_SESSION_IDLE_MINUTES): continue in that session, or send the follow-up once it has ended.`,
    });
    expect(await job()).toMatchObject({ status: 'completed' });

    // The session ends here, and another Quire process on the machine opens one on the branch: its lease, and the
    // checkout's hold it renews.
    await quire.service.context.adminSessions.end(session.sessionId, 'The client is done.');
    const hold = join(quire.dataDir, 'workspaces', `quire-${session.jobId}.lock`);
    writeFileSync(hold, 'token of the other process');
    await renewSessionLease(quire.dataDir, session.jobId);
    const reopened = await call(client, 'checkout', { projectId, branch: session.branch });
    expect(reopened.isError).toBe(true);
    expect(textOf(reopened)).toMatch(/Branch quire\/job_\w+ is open in an admin MCP session of another Quire process on this machine/);
    expect((await followUp()).status).toBe(409);
    expect(await job()).toMatchObject({ status: 'completed' });

    // That session ended too: the follow-up's run opens the checkout at once and completes.
    rmSync(hold);
    await endSessionLease(quire.dataDir, session.jobId);
    expect((await followUp()).status).toBe(200);
    await vi.waitFor(async () => expect(await job()).toMatchObject({ status: 'completed', error: null }), { timeout: 30_000, interval: 100 });
  }, 180_000);

  /** A session that saved a change and ended, as a client leaves its job: completed, with a pull request. */
  async function endedSession() {
    const session = await checkout();
    await call(client, 'write_file', { sessionId: session.sessionId, path: 'docs/notes.md', content: '# Notes\n' });
    const saved = (await call(client, 'save', { sessionId: session.sessionId, title: 'Notes' })).structuredContent;
    expect(saved).toMatchObject({ status: 'completed', model: 'test-agent', prLink: expect.any(String) });
    await quire.service.context.adminSessions.end(session.sessionId, 'The client is done.');
    return {
      prLink: saved?.prLink,
      job: async () => (await api('GET', `/v2/agent/${projectId}/job/${session.jobId}`)).body,
      followUp: () => api('POST', `/v2/agent/${projectId}/job/${session.jobId}/message`, { prompt: 'Link the notes from the guide' }),
    };
  }

  it('runs a follow-up of a session’s job with the model a new job of the project gets, and shows that model on the job', async () => {
    const { prLink, job, followUp } = await endedSession();
    const requests = model.requests.length;
    expect(await followUp()).toMatchObject({ status: 200, body: { status: 'active', model: 'test-model' } });
    await vi.waitFor(async () => expect(await job()).toMatchObject({ status: 'completed', error: null }), { timeout: 30_000, interval: 100 });
    expect(await job()).toMatchObject({ model: 'test-model', prLink });
    const calledModels = model.requests.slice(requests).map((request) => request.model);
    expect(calledModels.length).toBeGreaterThan(0);
    expect(new Set(calledModels)).toEqual(new Set(['test-model']));
  }, 180_000);

  it('refuses a follow-up of a session’s job as a create while the project has no model', async () => {
    const { job, followUp } = await endedSession();
    const setModel = async (value: string | null) => expect((await api('PATCH', `/v1/projects/${projectId}`, { model: value })).status).toBe(200);
    await setModel(null);
    try {
      expect(await followUp()).toEqual({
        status: 409,
        body: {
          code: 'project_not_configured',
          error: `Project ${projectId} has no model; set QUIRE_MODEL=provider:model or "quire projects update ${projectId} --model provider:model".`,
        },
      });
      expect(await job()).toMatchObject({ status: 'completed', model: 'test-agent' });
    } finally {
      await setModel('openai-compatible:test-model');
    }
  }, 180_000);
});
