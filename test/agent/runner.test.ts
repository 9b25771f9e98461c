import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { JobFailure } from '../../src/jobs/runner.ts';
import { git } from '../support/git-repositories.ts';
import { scriptedTurns, type ModelScript } from '../support/openai-server.ts';
import { runnerFixture, type RunnerFixture } from './runner-harness.ts';

const editGuide: ModelScript = scriptedTurns(
  [
    { text: '', toolCalls: [{ name: 'read_file', arguments: { path: 'docs/guide.md' } }] },
    {
      text: 'Adding the upgrade step.',
      toolCalls: [
        {
          name: 'edit_file',
          arguments: { path: 'docs/guide.md', old_string: 'Run `acme install`.', new_string: 'Run `acme install`.\n\n## Upgrade\n\nRun `acme upgrade`.' },
        },
      ],
    },
  ],
  'Document the upgrade command\n\n- docs/guide.md: new "Upgrade" section.',
);

describe('agent runner', () => {
  let fixture: RunnerFixture;
  afterEach(async () => fixture?.close());

  it('edits the repository, pushes the job branch and opens a pull request from the summary', async () => {
    fixture = await runnerFixture(editGuide);
    const outcome = await fixture.run('Document the upgrade command');
    expect(outcome).toEqual({
      prLink: 'https://code.example.test/acme/docs/pull/7',
      pullRequest: { draft: false, problems: [] },
      state: { pullRequest: expect.objectContaining({ number: 7, url: 'https://code.example.test/acme/docs/pull/7' }) },
      usage: { inputTokens: 300, outputTokens: 60 },
    });
    expect(git(fixture.repository, 'show', 'quire/job_01TEST:docs/guide.md')).toContain('## Upgrade\n\nRun `acme upgrade`.');
    expect(git(fixture.repository, 'log', '-1', '--format=%an <%ae>|%s', 'quire/job_01TEST')).toBe('Quire <quire@localhost>|Document the upgrade command\n');
    expect(fixture.host.requests).toEqual([
      {
        repository: fixture.repository,
        branch: 'quire/job_01TEST',
        jobId: 'job_01TEST',
        base: 'main',
        title: 'Document the upgrade command',
        body: expect.stringMatching(
          /^- docs\/guide.md: new "Upgrade" section\.\n\nRequested in Quire job job_01TEST:\n\n> Document the upgrade command\n\n## Checks\n\nQuire checked the change before committing it; everything passed:\n\n- Markdown and MDX compile/,
        ),
        draft: false,
        existingNumber: null,
      },
    ]);
    expect(fixture.transcript.map((entry) => entry.role)).toEqual(['user', 'tool', 'assistant', 'tool', 'assistant', 'event', 'event', 'event']);
    expect(fixture.transcript[5].content).toMatchObject({ type: 'checks', round: 0, passed: true, problems: [] });
    expect(fixture.transcript[6].content).toMatchObject({ type: 'change-pushed', files: [{ path: 'docs/guide.md', added: 4, removed: 0 }] });
    expect(fixture.transcript[1].content).toMatchObject({
      tool: 'read_file',
      input: { path: 'docs/guide.md' },
      result: expect.stringContaining('Run `acme install`.'),
    });
    expect(fixture.transcript[3].content).toEqual({
      tool: 'edit_file',
      input: expect.objectContaining({ path: 'docs/guide.md' }),
      result: 'Edited docs/guide.md: replaced 1 occurrence.',
    });
    const instructions = fixture.model.requests[0].messages[0];
    expect(instructions.role).toBe('system');
    expect(String(instructions.content)).toMatch(/docs\.json[\s\S]*mint\.json[\s\S]*mkdocs\.yml[\s\S]*sidebars/);
    expect(fixture.model.requests[0].tools?.map((tool) => tool.function.name).sort()).toEqual([
      'delete_file',
      'edit_file',
      'list_files',
      'move_file',
      'read_file',
      'search',
      'write_file',
    ]);
    expect(readdirSync(join(fixture.config.dataDir, 'workspaces'))).toEqual([]);
  });

  it('completes without a pull request when no file changed', async () => {
    fixture = await runnerFixture(
      scriptedTurns([{ text: '', toolCalls: [{ name: 'list_files', arguments: {} }] }], 'No change was needed: the guide already covers it.'),
    );
    const outcome = await fixture.run('Is the install step documented?');
    expect(outcome.prLink).toBeNull();
    expect(fixture.host.requests).toEqual([]);
    expect(git(fixture.repository, 'branch', '--list', 'quire/*')).toBe('');
  });

  it('continues a follow-up on the same branch and updates the same pull request', async () => {
    fixture = await runnerFixture((request, turn) => {
      const last = request.messages.findLast((message) => message.role === 'user')?.content;
      if (last === 'Nothing else') return { text: 'Nothing further to change.' };
      if (last !== 'Also mention the changelog') return editGuide(request, turn);
      return scriptedTurns(
        [
          { text: '', toolCalls: [{ name: 'read_file', arguments: { path: 'docs/guide.md' } }] },
          {
            text: '',
            toolCalls: [
              {
                name: 'edit_file',
                arguments: { path: 'docs/guide.md', old_string: 'Run `acme upgrade`.', new_string: 'Run `acme upgrade`, then read the changelog.' },
              },
            ],
          },
        ],
        'Point upgraders to the changelog\n\n- docs/guide.md: changelog hint.',
      )(request, turn);
    });
    const first = await fixture.run('Document the upgrade command');
    const second = await fixture.run('Also mention the changelog', { state: first.state });
    expect(second.prLink).toBe(first.prLink);
    expect(git(fixture.repository, 'show', 'quire/job_01TEST:docs/guide.md')).toContain('## Upgrade\n\nRun `acme upgrade`, then read the changelog.');
    expect(git(fixture.repository, 'rev-list', '--count', 'main..quire/job_01TEST')).toBe('2\n');
    expect(fixture.host.requests[1]).toMatchObject({
      existingNumber: 7,
      title: 'Document the upgrade command',
      body: expect.stringContaining('**Follow-up: Point upgraders to the changelog**'),
    });
    const followUpRequest = fixture.model.requests.find((request) => request.messages.some((message) => message.content === 'Also mention the changelog'))!;
    expect(followUpRequest.messages.map((message) => message.role).slice(0, 4)).toEqual(['system', 'user', 'assistant', 'user']);
    expect(followUpRequest.messages[1].content).toBe('Document the upgrade command');
    expect(String(followUpRequest.messages[2].content)).toContain('(I called edit_file on docs/guide.md.)');

    const third = await fixture.run('Nothing else', { state: second.state });
    expect(third).toMatchObject({ prLink: first.prLink, state: second.state });
    expect(fixture.host.requests).toHaveLength(2);
  });

  it('returns malformed and unknown tool calls to the model as errors and carries on', async () => {
    fixture = await runnerFixture(
      scriptedTurns([
        {
          text: '',
          toolCalls: [
            { name: 'read_file', arguments: '{"path": "docs/guide.md"' },
            { name: 'run_shell', arguments: { command: 'cat /etc/passwd' } },
            { name: 'edit_file', arguments: { path: 'docs/guide.md' } },
          ],
        },
      ]),
    );
    const outcome = await fixture.run('Fix the guide');
    expect(outcome.prLink).toBeNull();
    const tools = fixture.transcript.filter((entry) => entry.role === 'tool').map((entry) => entry.content);
    expect(tools).toEqual([
      expect.objectContaining({ tool: 'read_file', error: true }),
      expect.objectContaining({ tool: 'run_shell', error: true, result: expect.stringMatching(/run_shell/) }),
      expect.objectContaining({ tool: 'edit_file', error: true }),
    ]);
    const toolMessages = fixture.model.requests[1].messages.filter((message) => message.role === 'tool');
    expect(toolMessages).toHaveLength(3);
  });

  it('fails with the step limit named when the model keeps calling tools', async () => {
    fixture = await runnerFixture(() => ({ text: '', toolCalls: [{ name: 'list_files', arguments: {} }] }), { agentMaxSteps: 3 });
    const failure = await fixture.run('Loop forever').catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(JobFailure);
    expect((failure as Error).message).toMatch(/step limit of 3 model calls \(QUIRE_AGENT_MAX_STEPS\)/);
    expect(fixture.model.requests).toHaveLength(3);
    // The tokens of the three calls (100 in, 20 out each, as the test server reports) are still counted.
    expect((failure as JobFailure).usage).toEqual({ inputTokens: 300, outputTokens: 60 });
  });

  it('fails with the token limit named once the budget is spent', async () => {
    fixture = await runnerFixture(() => ({ text: '', toolCalls: [{ name: 'list_files', arguments: {} }], usage: { input: 100, output: 20 } }), {
      agentMaxTokens: 250,
    });
    const failure = (await fixture.run('Spend tokens').catch((error: unknown) => error)) as Error;
    expect(failure.message).toMatch(/used 360 tokens, over the limit of 250 \(QUIRE_AGENT_MAX_TOKENS\)/);
  });

  it('fails with the time limit named when the job runs too long', async () => {
    fixture = await runnerFixture(() => ({ text: 'late', delayMs: 3_000 }), { agentMaxSeconds: 1 });
    const started = Date.now();
    const failure = (await fixture.run('Be slow').catch((error: unknown) => error)) as Error;
    expect(failure).toBeInstanceOf(JobFailure);
    expect(failure.message).toMatch(/run 1 seconds \(QUIRE_AGENT_MAX_SECONDS\)/);
    expect(Date.now() - started).toBeLessThan(2_900);
  });

  it('stops when the worker aborts and passes the abort reason on', async () => {
    fixture = await runnerFixture(() => ({ text: 'late', delayMs: 2_000 }));
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('worker shutting down')), 200);
    await expect(fixture.run('Be slow', { signal: controller.signal })).rejects.toThrow('worker shutting down');
  });
});
