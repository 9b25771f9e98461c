import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { revokeLocal } from '../../src/accounts/local-grants.ts';
import type { Storage } from '../../src/storage/dialect.ts';
import { createBareRepository, git } from '../support/git-repositories.ts';
import { scriptedTurns, startOpenAiServer, type ModelScript, type OpenAiServer } from '../support/openai-server.ts';
import { testDatabases } from '../support/storage.ts';
import { signIn } from '../dashboard/session.ts';
import { startQuire, type QuireUnderTest } from './service-harness.ts';

/** Adds a page on the first prompt; on a follow-up, links it from the home page. */
const docsWriter: ModelScript = (request, turn) => {
  const prompt = request.messages.findLast((message) => message.role === 'user')?.content;
  if (prompt === 'Link it from the home page') {
    return scriptedTurns(
      [
        { text: '', toolCalls: [{ name: 'read_file', arguments: { path: 'docs/index.md' } }] },
        {
          text: '',
          toolCalls: [{ name: 'edit_file', arguments: { path: 'docs/index.md', old_string: 'in order.', new_string: 'in order. See the [FAQ](faq.md).' } }],
        },
      ],
      'Link the FAQ from the home page',
    )(request, turn);
  }
  return scriptedTurns(
    [
      { text: '', toolCalls: [{ name: 'read_file', arguments: { path: 'mkdocs.yml' } }] },
      {
        text: 'Adding the page and its navigation entry.',
        toolCalls: [
          { name: 'write_file', arguments: { path: 'docs/faq.md', content: '# FAQ\n\nWidgets are stored in order.\n' } },
          { name: 'edit_file', arguments: { path: 'mkdocs.yml', old_string: '  - Guide: guide.md\n', new_string: '  - Guide: guide.md\n  - FAQ: faq.md\n' } },
        ],
      },
    ],
    'Add an FAQ page\n\n- docs/faq.md: new page\n- mkdocs.yml: navigation entry',
  )(request, turn);
};

describe.each(testDatabases)('agent jobs on a local repository through the API on $dialect', (database) => {
  let storage: Storage;
  let model: OpenAiServer;
  let root: string;
  let quire: QuireUnderTest | undefined;

  beforeAll(async () => {
    model = await startOpenAiServer(docsWriter);
    root = mkdtempSync(join(tmpdir(), 'quire-local-jobs-'));
  });
  afterEach(async () => {
    await quire?.stop();
    quire = undefined;
    await storage?.close();
  });
  afterAll(async () => {
    await model.close();
    rmSync(root, { recursive: true, force: true });
  });

  async function start(name: string, config = {}) {
    storage = await database.open();
    const repository = createBareRepository(join(root, `${name}.git`));
    quire = await startQuire(storage, { repository, grants: { localDirectories: [root] }, config: { openaiBaseUrl: model.url, ...config } });
    return { repository, quire };
  }

  it('runs a job to completed with a change page, then a follow-up on the same branch and link', async () => {
    const { repository, quire } = await start('docs');
    const created = await quire.create('Add an FAQ page');
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ status: 'active', prLink: null, model: 'test-model' });
    const done = await quire.finished(created.body.id);
    expect(done).toMatchObject({ status: 'completed', error: null, prLink: `${quire.url}/dashboard/changes/${created.body.id}` });
    expect(git(repository, 'show', `quire/${created.body.id}:mkdocs.yml`)).toContain('  - FAQ: faq.md\n');
    const { cookie } = await signIn(quire.service.app!, storage, quire.tenant.orgId);
    const page = await fetch(done.prLink!, { headers: { cookie } });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Widgets are stored in order.');
    expect(readdirSync(join(quire.dataDir, 'workspaces'))).toEqual([]);

    const row = await storage.db.selectFrom('jobs').selectAll().where('id', '=', created.body.id).executeTakeFirstOrThrow();
    expect([row.input_tokens, row.output_tokens]).toEqual([300, 60]);
    const transcript = await quire.messages(created.body.id);
    expect(transcript.map((message) => `${message.role}:${message.content.type ?? message.content.tool ?? ''}`)).toEqual([
      'user:',
      'event:job-started',
      'tool:read_file',
      'assistant:',
      'tool:write_file',
      'tool:edit_file',
      'assistant:',
      'event:checks',
      'event:change-pushed',
      'event:job-completed',
    ]);
    expect(transcript.find((message) => message.content.type === 'change-pushed')?.content).toMatchObject({
      files: expect.arrayContaining([expect.objectContaining({ path: expect.any(String), added: expect.any(Number) })]),
      diff: expect.stringContaining('diff --git'),
      truncated: false,
    });

    const followUp = await quire.followUp(created.body.id, 'Link it from the home page');
    expect(followUp).toMatchObject({ status: 200, body: { status: 'active', prLink: null } });
    const again = await quire.finished(created.body.id);
    expect(again).toMatchObject({ status: 'completed', prLink: done.prLink });
    expect(git(repository, 'log', '--format=%s', `main..quire/${created.body.id}`)).toBe('Link the FAQ from the home page\nAdd an FAQ page\n');
  });

  it('fails at workspace open when the grant was revoked after the project was saved, and pushes nothing', async () => {
    const { repository, quire } = await start('revoked');
    expect(await revokeLocal(storage.db, quire.tenant.orgId, root)).toBe(true);
    const created = await quire.create('Add an FAQ page');
    expect(created.status).toBe(201);
    const done = await quire.finished(created.body.id);
    expect(done).toMatchObject({ status: 'failed', prLink: null });
    expect(done.error).toMatch(new RegExp(`may not use the local repository .*quire orgs grant-local ${quire.tenant.orgId} DIRECTORY`));
    expect(git(repository, 'branch', '--list', 'quire/*')).toBe('');
  });

  it('fails at workspace open when a link saved inside the grant now leads outside it, and pushes nothing there', async () => {
    storage = await database.open();
    const granted = join(root, 'granted');
    mkdirSync(granted);
    createBareRepository(join(granted, 'docs.git'));
    const outside = createBareRepository(join(root, 'outside.git'));
    const link = join(granted, 'current.git');
    symlinkSync(join(granted, 'docs.git'), link);
    quire = await startQuire(storage, { repository: link, grants: { localDirectories: [granted] }, config: { openaiBaseUrl: model.url } });
    unlinkSync(link);
    symlinkSync(outside, link);
    const done = await quire.finished((await quire.create('Add an FAQ page')).body.id);
    expect(done.status).toBe('failed');
    expect(done.error).toMatch(/may not use the local repository .*symlinks resolved/);
    expect(git(outside, 'branch', '--list', 'quire/*')).toBe('');
  });

  it('fails the job with the step limit named', async () => {
    const { quire } = await start('limited', { agentMaxSteps: 1 });
    const created = await quire.create('Add an FAQ page');
    const done = await quire.finished(created.body.id);
    expect(done.status).toBe('failed');
    expect(done.error).toMatch(/QUIRE_AGENT_MAX_STEPS/);
    expect(done.prLink).toBeNull();
  });

  it('answers 409 project_not_configured naming OPENAI_BASE_URL when the model endpoint is missing', async () => {
    const { quire } = await start('unconfigured', { openaiBaseUrl: undefined });
    const created = await quire.create('Add an FAQ page');
    expect(created.status).toBe(409);
    expect(created.body).toMatchObject({ code: 'project_not_configured', error: expect.stringContaining('OPENAI_BASE_URL') });
  });
});
