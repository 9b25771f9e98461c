import { afterEach, describe, expect, it } from 'vitest';
import { git } from '../support/git-repositories.ts';
import { scriptedTurns, type ModelScript } from '../support/openai-server.ts';
import { runnerFixture, type RunnerFixture } from './runner-harness.ts';

/** Writes a page, then (turn 1) answers only after a long time: the model request is in flight when the test cancels. */
const writeThenThink: ModelScript = scriptedTurns([
  { text: '', toolCalls: [{ name: 'write_file', arguments: { path: 'docs/new.md', content: '# New page\n' } }] },
  { text: 'Thinking…', delayMs: 30_000 },
]);

const writeOnce: ModelScript = scriptedTurns([{ text: '', toolCalls: [{ name: 'write_file', arguments: { path: 'docs/new.md', content: '# New page\n' } }] }]);

const remoteBranches = (fixture: RunnerFixture) => git(fixture.repository, 'branch', '--list', 'quire/*').trim();

class Cancelled extends Error {}

describe('cancelling a run', () => {
  let fixture: RunnerFixture;
  afterEach(async () => fixture?.close());

  it('aborts an in-flight model request mid-step and pushes nothing', async () => {
    fixture = await runnerFixture(writeThenThink);
    const controller = new AbortController();
    const running = fixture.run('Add a page', { signal: controller.signal });
    const watcher = setInterval(() => {
      if (fixture.model.requests.length >= 2) controller.abort(new Cancelled('job cancelled'));
    }, 10);
    await expect(running).rejects.toBeInstanceOf(Cancelled);
    clearInterval(watcher);
    expect(remoteBranches(fixture)).toBe('');
    expect(fixture.host.requests).toEqual([]);
  });

  it('pushes nothing when the cancel is seen right before the push', async () => {
    fixture = await runnerFixture(writeOnce);
    const controller = new AbortController();
    const stillRunning = async () => {
      controller.abort(new Cancelled('job cancelled'));
      return false;
    };
    await expect(fixture.run('Add a page', { signal: controller.signal, stillRunning })).rejects.toBeInstanceOf(Cancelled);
    expect(remoteBranches(fixture)).toBe('');
    expect(fixture.host.requests).toEqual([]);
  });

  it('takes back a push that raced the cancel: a new branch is deleted, and no pull request is opened', async () => {
    fixture = await runnerFixture(writeOnce);
    const controller = new AbortController();
    let checks = 0;
    const stillRunning = async () => {
      checks++;
      if (checks === 1) return true;
      // The cancel committed while the push ran.
      expect(remoteBranches(fixture)).toBe('quire/job_01TEST');
      controller.abort(new Cancelled('job cancelled'));
      return false;
    };
    await expect(fixture.run('Add a page', { signal: controller.signal, stillRunning })).rejects.toBeInstanceOf(Cancelled);
    expect(checks).toBe(2);
    expect(remoteBranches(fixture)).toBe('');
    expect(fixture.host.requests).toEqual([]);
  });

  it('puts a continued branch back where it was when a follow-up’s push raced the cancel', async () => {
    fixture = await runnerFixture(writeOnce);
    const first = await fixture.run('Add a page');
    const before = git(fixture.repository, 'rev-parse', 'quire/job_01TEST').trim();
    fixture.model.script = scriptedTurns([{ text: '', toolCalls: [{ name: 'write_file', arguments: { path: 'docs/other.md', content: '# Other\n' } }] }]);
    const controller = new AbortController();
    let checks = 0;
    const stillRunning = async () => {
      if (++checks === 1) return true;
      controller.abort(new Cancelled('job cancelled'));
      return false;
    };
    await expect(fixture.run('Add another page', { signal: controller.signal, stillRunning, state: first.state })).rejects.toBeInstanceOf(Cancelled);
    expect(git(fixture.repository, 'rev-parse', 'quire/job_01TEST').trim()).toBe(before);
    expect(fixture.host.requests).toHaveLength(1);
  });

  it('opens the pull request as draft when the job asks for it', async () => {
    fixture = await runnerFixture(writeOnce);
    await fixture.run('Add a page', { job: { draft: 1 } });
    expect(fixture.host.requests[0]).toMatchObject({ draft: true, jobId: 'job_01TEST' });
  });

  it('refuses to start a job on a named branch that already exists in the repository', async () => {
    fixture = await runnerFixture(writeOnce);
    await expect(fixture.run('Add a page', { job: { branch: 'main' } })).rejects.toThrow(/Branch main already exists/);
  });
});
