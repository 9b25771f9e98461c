import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { JobFailure } from '../../src/jobs/runner.ts';
import { endSessionLease, renewSessionLease } from '../../src/workspace/session-lease.ts';
import { commitToBareRepository, git } from '../support/git-repositories.ts';
import { scriptedTurns, type ModelReply } from '../support/openai-server.ts';
import { runnerFixture, type RunnerFixture } from './runner-harness.ts';

const failureOf = (promise: Promise<unknown>) =>
  promise.then(
    () => null,
    (error: unknown) => error as Error,
  );

const writePage = scriptedTurns(
  [
    {
      text: '',
      toolCalls: [
        { name: 'write_file', arguments: { path: 'docs/faq.md', content: '# FAQ\n' } },
        { name: 'write_file', arguments: { path: 'mkdocs.yml', content: 'site_name: Acme\nnav:\n  - Home: index.md\n  - Guide: guide.md\n  - FAQ: faq.md\n' } },
      ],
    },
  ],
  'Add an FAQ page\n\n- docs/faq.md',
);

describe('agent runner failures', () => {
  let fixture: RunnerFixture;
  afterEach(async () => fixture?.close());

  it('fails with the connection error when the model server is down', async () => {
    fixture = await runnerFixture(writePage);
    await fixture.model.close();
    const failure = await failureOf(fixture.run('Add an FAQ'));
    expect(failure).toBeInstanceOf(JobFailure);
    expect(failure?.message).toMatch(/^The model provider failed: Cannot connect to API: .*ECONNREFUSED.*Check QUIRE_MODEL/);
  });

  it('fails with the provider’s message on an error it does not mark retryable, without retrying', async () => {
    fixture = await runnerFixture(() => ({ status: 401, message: 'Incorrect API key provided' }), { agentMaxRetries: 3 });
    const failure = await failureOf(fixture.run('Add an FAQ'));
    expect(failure?.message).toMatch(/^The model provider failed \(HTTP 401\): Incorrect API key provided\. Check QUIRE_MODEL/);
    expect(fixture.model.requests).toHaveLength(1);
  });

  it('retries a rate-limited call after the provider’s Retry-After and then succeeds', async () => {
    let calls = 0;
    fixture = await runnerFixture(
      (request, turn): ModelReply => {
        calls += 1;
        return calls === 1 ? { status: 429, message: 'Rate limit reached', headers: { 'retry-after': '0' } } : writePage(request, turn);
      },
      { agentMaxRetries: 2 },
    );
    const outcome = await fixture.run('Add an FAQ');
    expect(outcome.prLink).toMatch(/pull\/7$/);
    expect(fixture.model.requests).toHaveLength(3);
  });

  it('gives up after the configured retries and names the attempts', async () => {
    fixture = await runnerFixture(() => ({ status: 503, message: 'Overloaded', headers: { 'retry-after': '0' } }), { agentMaxRetries: 2 });
    const failure = await failureOf(fixture.run('Add an FAQ'));
    expect(failure?.message).toMatch(/^The model provider failed after 3 attempts \(HTTP 503\): Overloaded/);
    expect(fixture.model.requests).toHaveLength(3);
  });

  it('fails with the code host’s explanation when it refuses the pull request, after pushing the branch', async () => {
    fixture = await runnerFixture(writePage);
    fixture.host.refuse = true;
    const failure = await failureOf(fixture.run('Add an FAQ'));
    expect(failure?.message).toMatch(/refused to open the pull request \(HTTP 403\)/);
    expect(git(fixture.repository, 'show', 'quire/job_01TEST:docs/faq.md')).toBe('# FAQ\n');

    fixture.host.refuse = false;
    const retried = await fixture.run('Please retry');
    expect(retried.prLink).toMatch(/pull\/7$/);
  });

  it('fails when pushing is rejected because the job branch moved on the remote', async () => {
    fixture = await runnerFixture((request, turn) => {
      if (turn === 0) commitToBareRepository(fixture.repository, 'main', { 'docs/other.md': 'x\n' });
      if (turn === 0) git(fixture.repository, 'branch', 'quire/job_01TEST', 'main');
      return writePage(request, turn);
    });
    const failure = await failureOf(fixture.run('Add an FAQ'));
    expect(failure).toBeInstanceOf(JobFailure);
    expect(failure?.message).toMatch(/rejected the push of branch quire\/job_01TEST/);
  });

  it('fails clearly for a missing ref or repository', async () => {
    fixture = await runnerFixture(writePage);
    const missingRef = await failureOf(fixture.run('Add an FAQ', { job: { ref: 'no-such-branch' } }));
    expect(missingRef).toBeInstanceOf(JobFailure);
    expect(missingRef?.message).toMatch(/no-such-branch/);
    const missingRepository = await failureOf(fixture.run('Add an FAQ', { job: { repository: `${fixture.repository}-missing` } }));
    expect(missingRepository).toBeInstanceOf(JobFailure);
    expect(fixture.model.requests).toHaveLength(0);
  });

  it('fails saying who held the job’s checkout, not that the agent ran out of time, when the run waited for it all its time', async () => {
    fixture = await runnerFixture(writePage, { agentMaxSeconds: 1 });
    const { dataDir } = fixture.config;
    // Another process on the machine holds the job's checkout: first an admin MCP session on the job's branch.
    mkdirSync(join(dataDir, 'workspaces'), { recursive: true });
    writeFileSync(join(dataDir, 'workspaces', 'quire-job_01TEST.lock'), 'token of another process');
    await renewSessionLease(dataDir, 'job_01TEST');
    const bySession = await failureOf(fixture.run('Add an FAQ'));
    expect(bySession).toBeInstanceOf(JobFailure);
    expect(bySession?.message).toBe(
      "This run waited 1 seconds (QUIRE_AGENT_MAX_SECONDS) for the job's checkout and changed nothing: an admin MCP session has the job's branch quire/job_01TEST checked out, and stays open after its saves until it is idle for 60 minutes (QUIRE_MCP_SESSION_IDLE_MINUTES). Continue in that session, or send a follow-up once it has ended.",
    );
    // Then an earlier run of the job that has not ended.
    await endSessionLease(dataDir, 'job_01TEST');
    const byRun = await failureOf(fixture.run('Add an FAQ'));
    expect(byRun?.message).toBe(
      "This run waited 1 seconds (QUIRE_AGENT_MAX_SECONDS) for the job's checkout and changed nothing: an earlier run of the job still held it. Send a follow-up once that run has ended.",
    );
    expect(fixture.model.requests).toHaveLength(0);
  });

  it('redacts credentials from the transcript and the pull request', async () => {
    const token = `ghp_${'A1b2C3d4'.repeat(5)}`;
    fixture = await runnerFixture(
      scriptedTurns(
        [
          { text: '', toolCalls: [{ name: 'write_file', arguments: { path: 'docs/ci.md', content: `token: ${token}\nkey: sk-local-model-key-123\n` } }] },
          { text: '', toolCalls: [{ name: 'read_file', arguments: { path: 'docs/ci.md' } }] },
        ],
        `Add CI notes with ${token}\n\n- docs/ci.md uses ${token}`,
      ),
      { openaiApiKey: 'sk-local-model-key-123' },
    );
    await fixture.run('Document CI');
    const transcript = JSON.stringify(fixture.transcript);
    expect(transcript).toContain('[redacted]');
    expect(transcript).not.toContain(token);
    expect(transcript).not.toContain('sk-local-model-key-123');
    expect(JSON.stringify(fixture.host.requests)).not.toContain(token);
    expect(fixture.model.requests[0].headers.authorization).toBe('Bearer sk-local-model-key-123');
  });
});
