import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createRunner } from '../src/agent/runner.ts';
import type { ProjectRow } from '../src/storage/tables/accounts.ts';
import { codeHostFor } from '../src/code-hosts/select.ts';
import type { JobRow } from '../src/storage/tables/jobs.ts';
import { loadConfig } from '../src/config/config.ts';
import { openWorkspace } from '../src/workspace/workspace.ts';
import { startGitHttpServer } from '../test/support/git-http-server.ts';
import { startGithubServer } from '../test/support/github-server.ts';
import { scriptedTurns, startOpenAiServer } from '../test/support/openai-server.ts';
import { startBenchProcess } from './processes.ts';
import type { BenchSuite, Report } from './report.ts';

export const pageCount = 2_000;
const token = 'ghp_benchToken0123456789abcdefABCDEF';

/** A docs site of `pageCount` Markdown pages of about 2 KB in 40 sections, with an mkdocs.yml. */
export function docsRepositoryFiles(): Record<string, string> {
  const files: Record<string, string> = { 'mkdocs.yml': 'site_name: Bench\ndocs_dir: docs\n' };
  const paragraph = 'Widgets are arranged in trays; each tray holds up to forty widgets and reports its state every minute. ';
  for (let index = 0; index < pageCount; index++) {
    const section = String(index % 40).padStart(2, '0');
    files[`docs/section-${section}/page-${String(index).padStart(4, '0')}.md`] =
      `# Page ${index}\n\n## Overview\n\n${paragraph.repeat(18)}\n\n## Details ${index}\n\n${paragraph.repeat(2)}\n`;
  }
  return files;
}

/** The model's part, scripted: read one page, edit it, summarize (three calls answered at once). */
const script = scriptedTurns(
  [
    { text: '', toolCalls: [{ name: 'read_file', arguments: { path: 'docs/section-00/page-0000.md' } }] },
    {
      text: '',
      toolCalls: [{ name: 'edit_file', arguments: { path: 'docs/section-00/page-0000.md', old_string: '## Overview', new_string: '## Overview of trays' } }],
    },
  ],
  'Rename the overview heading\n\n- docs/section-00/page-0000.md',
);

function time<T>(work: () => Promise<T>): Promise<number> {
  const start = performance.now();
  return work().then(() => performance.now() - start);
}

async function run(report: Report): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'quire-bench-agent-'));
  const gitServer = await startGitHttpServer({ username: 'x-access-token', password: token, privateFetch: true });
  const github = await startGithubServer({ tokens: [token] });
  const model = await startOpenAiServer(script);
  try {
    const repository = gitServer.createRepository('acme/docs', docsRepositoryFiles());
    const environment = {
      GITHUB_SERVER_URL: gitServer.url,
      GITHUB_API_URL: github.url,
      GITHUB_TOKEN: token,
      OPENAI_BASE_URL: model.url,
      QUIRE_MODEL: 'openai-compatible:bench',
    };
    const config = loadConfig({ ...environment, QUIRE_DATA_DIR: join(root, 'data'), LOG_LEVEL: 'silent' });
    let opened = 0;
    const runner = createRunner(config, {
      openWorkspace,
      accessFor: async (job) => {
        const host = codeHostFor(job.repository, config);
        return {
          repository: job.repository,
          host: { ...host, openOrUpdatePullRequest: (request) => host.openOrUpdatePullRequest(request).finally(() => (opened = performance.now())) },
        };
      },
    });
    const project = { id: 'prj_bench', docs_path: null } as ProjectRow;
    const jobToPullRequest = async (id: string) => {
      const job = { id, repository, ref: 'main', model: 'openai-compatible:bench', branch: `quire/${id}` } as JobRow;
      const start = performance.now();
      const messages = [{ seq: 0, role: 'user' as const, content: { text: 'Rename the overview heading' }, createdAt: new Date().toISOString() }];
      await runner.run({
        job,
        project,
        prompt: 'Rename the overview heading',
        messages,
        state: null,
        signal: new AbortController().signal,
        record: async () => {},
        stillRunning: async () => true,
      });
      return opened - start;
    };

    // Asynchronous: the git server answering this clone runs in this process.
    const clone = await time(async () => {
      await promisify(execFile)('git', [
        '-c',
        `http.extraHeader=Authorization: Basic ${Buffer.from(`x-access-token:${token}`).toString('base64')}`,
        'clone',
        '--quiet',
        repository,
        join(root, 'plain-clone'),
      ]);
    });
    const first = await jobToPullRequest('job_bench_first');
    const second = await jobToPullRequest('job_bench_second');
    const reference = { name: `git clone of the same ${pageCount}-page repository`, value: clone };
    report.add({ name: `job start → pull request opened, first job (cold mirror)`, value: first, unit: 'ms', reference });
    report.add({ name: 'job start → pull request opened, second job (warm mirror)', value: second, unit: 'ms', reference });

    const worker = await startBenchProcess('bench/agent-worker.ts', [], {
      ...environment,
      QUIRE_DATA_DIR: join(root, 'worker'),
      QUIRE_WORKER_CONCURRENCY: '4',
      QUIRE_WORKER_POLL_MS: '50',
      BENCH_REPOSITORY: repository,
    });
    try {
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      const idle = worker.peakRss();
      const { url, projectId, key } = worker.info;
      const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
      const ids = await Promise.all(
        Array.from({ length: 4 }, async () => {
          const response = await fetch(`${url}/v2/agent/${projectId}/job`, {
            method: 'POST',
            headers,
            body: JSON.stringify({ prompt: 'Rename the overview heading' }),
          });
          return ((await response.json()) as { id: string }).id;
        }),
      );
      for (const id of ids) {
        for (;;) {
          const job = (await (await fetch(`${url}/v2/agent/${projectId}/job/${id}`, { headers })).json()) as { status: string; error: string | null };
          if (job.status === 'failed') throw new Error(`benchmark job failed: ${job.error}`);
          if (job.status !== 'active') break;
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      }
      report.add({
        name: 'worker peak RSS, 4 jobs at once',
        value: worker.peakRss() / 1024 / 1024,
        unit: 'MiB',
        reference: { name: 'same process idle', value: idle / 1024 / 1024 },
      });
    } finally {
      await worker.stop();
    }
  } finally {
    await Promise.all([gitServer.close(), github.close(), model.close()]);
    rmSync(root, { recursive: true, force: true });
  }
}

export const agentBench: BenchSuite = {
  name: 'agent',
  description: `agent jobs on a generated ${pageCount}-page docs repository over git smart HTTP, model scripted`,
  run,
};
