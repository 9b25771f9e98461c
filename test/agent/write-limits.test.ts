import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { agentTools } from '../../src/agent/tools/index.ts';
import { JobFailure } from '../../src/jobs/runner.ts';
import { createWorkspaceFiles } from '../../src/workspace/files.ts';
import { testConfig } from '../support/app.ts';
import { git } from '../support/git-repositories.ts';
import { scriptedTurns } from '../support/openai-server.ts';
import { runnerFixture, type RunnerFixture } from './runner-harness.ts';
import { call, writeTree } from './tool-harness.ts';

const failureOf = (promise: Promise<unknown>) =>
  promise.then(
    () => null,
    (error: unknown) => error as Error,
  );
const branchesOf = (repository: string) => git(repository, 'branch', '--list', '--format=%(refname:short)').trim().split('\n');

describe('sizes of what the agent writes', () => {
  let dir: string;
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const toolsWith = (limits: { agentMaxFileBytes: number; agentMaxChangeBytes: number }) => {
    dir = writeTree({ 'docs/guide.md': '# Guide\n\nStep one.\n' });
    return agentTools(createWorkspaceFiles(dir), testConfig(limits));
  };

  it('refuses a file over QUIRE_AGENT_MAX_FILE_BYTES, counted in bytes, and writes nothing', async () => {
    const tools = toolsWith({ agentMaxFileBytes: 1000, agentMaxChangeBytes: 10_000 });
    const refused = await call(tools, 'write_file', { path: 'docs/big.md', content: 'é'.repeat(600) });
    expect(refused).toBe(
      'Error: "docs/big.md" would have 1200 bytes, more than the 1000 bytes one file may have (QUIRE_AGENT_MAX_FILE_BYTES); nothing was written. Keep the file smaller, for example by splitting it into several pages.',
    );
    expect(existsSync(join(dir, 'docs/big.md'))).toBe(false);
    expect(await call(tools, 'write_file', { path: 'docs/big.md', content: 'é'.repeat(500) })).toBe('Created docs/big.md (1 lines).');
  });

  it('refuses an edit whose result is over the file cap, and leaves the file as it was', async () => {
    const tools = toolsWith({ agentMaxFileBytes: 1000, agentMaxChangeBytes: 10_000 });
    await call(tools, 'read_file', { path: 'docs/guide.md' });
    const refused = await call(tools, 'edit_file', { path: 'docs/guide.md', old_string: 'e', new_string: 'e'.repeat(400), replace_all: true });
    expect(refused).toMatch(/^Error: "docs\/guide.md" would have 1216 bytes, more than the 1000 bytes .*QUIRE_AGENT_MAX_FILE_BYTES/);
    expect(readFileSync(join(dir, 'docs/guide.md'), 'utf8')).toBe('# Guide\n\nStep one.\n');
  });

  it('refuses writes that bring the change over QUIRE_AGENT_MAX_CHANGE_BYTES, and counts each file once', async () => {
    const tools = toolsWith({ agentMaxFileBytes: 1000, agentMaxChangeBytes: 2000 });
    expect(await call(tools, 'write_file', { path: 'docs/one.md', content: 'x'.repeat(900) })).toMatch(/^Created/);
    expect(await call(tools, 'write_file', { path: 'docs/one.md', content: 'y'.repeat(900) })).toMatch(/^Replaced/);
    expect(await call(tools, 'write_file', { path: 'docs/two.md', content: 'x'.repeat(900) })).toMatch(/^Created/);
    const refused = await call(tools, 'write_file', { path: 'docs/three.md', content: 'x'.repeat(900) });
    expect(refused).toBe(
      'Error: writing "docs/three.md" would bring the files written by this job to 2700 bytes, more than the 2000 bytes one change may have (QUIRE_AGENT_MAX_CHANGE_BYTES); nothing was written. Write less: shorten the content, or delete files you created that are not needed.',
    );
    expect(existsSync(join(dir, 'docs/three.md'))).toBe(false);
    expect(await call(tools, 'move_file', { from: 'docs/one.md', to: 'docs/moved/one.md' })).toMatch(/^Moved/);
    expect(await call(tools, 'write_file', { path: 'docs/moved/one.md', content: 'z'.repeat(900) })).toMatch(/^Replaced/);
    expect(await call(tools, 'delete_file', { path: 'docs/moved' })).toMatch(/^Deleted/);
    expect(await call(tools, 'write_file', { path: 'docs/three.md', content: 'x'.repeat(900) })).toMatch(/^Created/);
  });
});

describe('a change over QUIRE_AGENT_MAX_CHANGE_BYTES at commit time', () => {
  let fixture: RunnerFixture;
  afterEach(async () => fixture?.close());

  it('fails the job and pushes nothing, even when the files reached the checkout past the tools', async () => {
    fixture = await runnerFixture(
      (request, turn) => {
        // Plays content that reached the checkout without a tool's count (a tool added later, a bug).
        if (turn === 1) writeFileSync(join(fixture.config.dataDir, 'workspaces/quire-job_01TEST/docs/dump.md'), 'x'.repeat(5000));
        return scriptedTurns([{ text: '', toolCalls: [{ name: 'write_file', arguments: { path: 'docs/faq.md', content: '# FAQ\n' } }] }], 'Add an FAQ')(
          request,
          turn,
        );
      },
      { agentMaxChangeBytes: 4096 },
    );
    const failure = await failureOf(fixture.run('Add an FAQ'));
    expect(failure).toBeInstanceOf(JobFailure);
    expect(failure?.message).toBe(
      'The change is 5006 bytes (files added or changed against main), more than the 4096 bytes QUIRE_AGENT_MAX_CHANGE_BYTES allows; nothing was committed or pushed. Ask for a smaller change, or raise QUIRE_AGENT_MAX_CHANGE_BYTES.',
    );
    expect(branchesOf(fixture.repository)).toEqual(['main']);
    expect(fixture.host.requests).toHaveLength(0);
  });

  it('counts what earlier runs of the job pushed: a follow-up that goes over pushes nothing more', async () => {
    const writes = (path: string) =>
      scriptedTurns([{ text: '', toolCalls: [{ name: 'write_file', arguments: { path, content: 'x'.repeat(3000) } }] }], `Add ${path}`);
    fixture = await runnerFixture(writes('docs/one.md'), { agentMaxChangeBytes: 4096 });
    const first = await fixture.run('Add page one');
    expect(first.prLink).toMatch(/pull\/7$/);
    fixture.model.script = writes('docs/two.md');
    const failure = await failureOf(fixture.run('Add page two', { state: first.state }));
    expect(failure?.message).toMatch(
      /^The change is 6000 bytes .*more than the 4096 bytes QUIRE_AGENT_MAX_CHANGE_BYTES allows; nothing was committed or pushed/,
    );
    expect(git(fixture.repository, 'ls-tree', '--name-only', '-r', 'quire/job_01TEST').split('\n')).not.toContain('docs/two.md');
  });

  it('does not count files moved without change', async () => {
    fixture = await runnerFixture(
      scriptedTurns([{ text: '', toolCalls: [{ name: 'move_file', arguments: { from: 'docs/guide.md', to: 'docs/guides/install.md' } }] }], 'Move the guide'),
      { agentMaxChangeBytes: 1 },
    );
    expect((await fixture.run('Move the guide')).prLink).toMatch(/pull\/7$/);
  });
});
