import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRunner } from '../../src/agent/runner.ts';
import type { ProjectRow } from '../../src/storage/tables/accounts.ts';
import { CodeHostError, type CodeHost, type PullRequestRequest } from '../../src/code-hosts/types.ts';
import type { JobRun, RunOutcome, TranscriptMessage } from '../../src/jobs/runner.ts';
import type { JobRow, MessageRole } from '../../src/storage/tables/jobs.ts';
import type { Config } from '../../src/config/config.ts';
import { openWorkspace } from '../../src/workspace/workspace.ts';
import { testConfig } from '../support/app.ts';
import { createBareRepository, docsFiles } from '../support/git-repositories.ts';
import { startOpenAiServer, type ModelScript, type OpenAiServer } from '../support/openai-server.ts';

/** A code host that records pull requests, or refuses them like a token without permission. */
export class RecordingCodeHost implements CodeHost {
  readonly name = 'local' as const;
  readonly requests: PullRequestRequest[] = [];
  refuse = false;

  async gitCredentials() {
    return undefined;
  }

  async openOrUpdatePullRequest(request: PullRequestRequest) {
    if (this.refuse)
      throw new CodeHostError('The code host refused to open the pull request (HTTP 403); give the token permission to create pull requests.', 403);
    this.requests.push(request);
    const number = request.existingNumber ?? 7;
    return { number, url: `https://code.example.test/acme/docs/pull/${number}` };
  }
}

export interface RunnerFixture {
  config: Config;
  model: OpenAiServer;
  host: RecordingCodeHost;
  repository: string;
  /** Transcript entries the runs recorded. */
  transcript: TranscriptMessage[];
  run(prompt: string, options?: { state?: unknown; signal?: AbortSignal; job?: Partial<JobRow>; stillRunning?: () => Promise<boolean> }): Promise<RunOutcome>;
  close(): Promise<void>;
}

/**
 * The runner with the real workspace and model provider, a local bare repository (holding `files`)
 * and a recording code host.
 */
export async function runnerFixture(script: ModelScript, overrides: Partial<Config> = {}, files: Record<string, string> = docsFiles): Promise<RunnerFixture> {
  const root = mkdtempSync(join(tmpdir(), 'quire-runner-'));
  const repository = createBareRepository(join(root, 'docs.git'), files);
  const model = await startOpenAiServer(script);
  const config = testConfig({ dataDir: join(root, 'data'), openaiBaseUrl: model.url, agentMaxRetries: 0, ...overrides });
  const host = new RecordingCodeHost();
  const runner = createRunner(config, { openWorkspace, accessFor: async (job) => ({ host, repository: job.repository }) });
  const transcript: TranscriptMessage[] = [];
  const record = async (role: MessageRole, content: Record<string, unknown>) => {
    transcript.push({ seq: transcript.length, role, content, createdAt: new Date().toISOString() });
  };
  const job: JobRow = {
    id: 'job_01TEST',
    org_id: 'org_1',
    project_id: 'prj_1',
    status: 'active',
    prompt: '',
    repository,
    ref: 'main',
    model: 'openai-compatible:test-model',
    branch: 'quire/job_01TEST',
    pr_link: null,
    error: null,
    runner_state: null,
    input_tokens: 0,
    output_tokens: 0,
    created_at: Date.now(),
    updated_at: Date.now(),
    archived_at: null,
    pr_draft: null,
    problems: null,
    problem_count: null,
    draft: 0,
    cancelled_at: null,
    cancelled_by: null,
    origin: 'api',
  };
  const project = { id: 'prj_1', docs_path: null } as ProjectRow;
  return {
    config,
    model,
    host,
    repository,
    transcript,
    async run(prompt, options = {}) {
      await record('user', { text: prompt });
      const run: JobRun = {
        job: { ...job, ...options.job },
        project,
        prompt,
        messages: [...transcript],
        state: options.state ?? null,
        signal: options.signal ?? new AbortController().signal,
        record,
        stillRunning: options.stillRunning ?? (async () => !options.signal?.aborted),
      };
      return runner.run(run).then(
        async (outcome) => {
          await record('event', { type: 'job-completed', prLink: outcome.prLink });
          return outcome;
        },
        async (error: Error) => {
          await record('event', { type: 'job-failed', error: error.message });
          throw error;
        },
      );
    },
    async close() {
      await model.close();
      rmSync(root, { recursive: true, force: true });
    },
  };
}
