import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createKey } from '../src/accounts/keys.ts';
import { grantLocal } from '../src/accounts/local-grants.ts';
import { createOrganization } from '../src/accounts/organizations.ts';
import { createProject } from '../src/accounts/projects.ts';
import { loadConfig } from '../src/config/config.ts';
import { startService, type RunningService } from '../src/server/service.ts';
import { createBareRepository } from '../test/support/git-repositories.ts';
import { startOpenAiServer } from '../test/support/openai-server.ts';
import { Branch } from './branch.ts';
import { scriptedModel } from './scripted.ts';
import type { EvalTask, Outcome, ScriptedRun } from './task.ts';

/** Which model answers: scripted (the tasks' own solutions, or others), or one the environment configures. */
export type EvalModel = { kind: 'scripted'; solutions?: Record<string, ScriptedRun[]> } | { kind: 'configured'; name: string };

export interface TaskScore {
  task: string;
  framework: EvalTask['framework'];
  passed: boolean;
  /** Why it failed (empty when it passed). */
  reasons: string[];
  /** Tool calls plus final answers, over every prompt of the task. */
  steps: number;
  tokens: number;
  seconds: number;
}

export interface EvalOptions {
  tasks: EvalTask[];
  model: EvalModel;
  /** Where model keys and OPENAI_BASE_URL come from for a configured model. */
  environment?: NodeJS.ProcessEnv;
  /** Each run of a job may take this long before the task fails. */
  runTimeoutMs?: number;
  onTaskStart?(task: EvalTask, index: number): void;
  onTaskEnd?(score: TaskScore, index: number): void;
}

/**
 * Runs each task through the real job path: Quire's service (API and worker) on a fresh SQLite
 * database, a generated repository per task in a local bare repository the organization was granted,
 * jobs created and followed up over HTTP, and the pushed branch graded by the task.
 */
export async function runEval(options: EvalOptions): Promise<TaskScore[]> {
  const root = mkdtempSync(join(tmpdir(), 'quire-eval-'));
  const repositories = join(root, 'repositories');
  mkdirSync(repositories);
  const scripted = options.model.kind === 'scripted' ? await startOpenAiServer(scriptedModel(options.tasks, options.model.solutions)) : null;
  const model = options.model.kind === 'scripted' ? 'openai-compatible:eval-scripted' : options.model.name;
  let service: RunningService | null = null;
  try {
    const environment = { ...(scripted ? {} : options.environment), ...(scripted ? { OPENAI_BASE_URL: scripted.url } : {}) };
    // Every job has finished when the service stops, so no grace period is needed (the worker waits out a pending one).
    const config = loadConfig(
      { ...environment, QUIRE_DATA_DIR: join(root, 'data') },
      { logLevel: 'silent', port: 0, host: '127.0.0.1', workerPollMs: 50, shutdownGraceSeconds: 0 },
    );
    service = await startService({ config, api: true, worker: true });
    const { db } = service.context.storage;
    const organization = await createOrganization(db, 'Eval');
    await grantLocal(db, config.dataDir, organization.id, repositories);
    const { key } = await createKey(db, organization.id);
    const client = apiClient(service.url as string, key);
    const scores: TaskScore[] = [];
    for (const [index, task] of options.tasks.entries()) {
      options.onTaskStart?.(task, index);
      const repository = createBareRepository(join(repositories, `${task.name}.git`), task.files);
      const project = await createProject(db, organization.id, { name: task.name, repository, ref: 'main', model });
      const started = performance.now();
      const score = await runTask(task, client, project.id, repository, options.runTimeoutMs ?? 600_000).catch((error: unknown) => ({
        reasons: [`the harness failed: ${error instanceof Error ? error.message : String(error)}`],
        steps: 0,
        jobId: null as string | null,
      }));
      const row = score.jobId
        ? await db.selectFrom('jobs').select(['input_tokens', 'output_tokens']).where('id', '=', score.jobId).executeTakeFirst()
        : undefined;
      const result: TaskScore = {
        task: task.name,
        framework: task.framework,
        passed: score.reasons.length === 0,
        reasons: score.reasons,
        steps: score.steps,
        tokens: row ? row.input_tokens + row.output_tokens : 0,
        seconds: (performance.now() - started) / 1000,
      };
      scores.push(result);
      options.onTaskEnd?.(result, index);
    }
    return scores;
  } finally {
    await service?.stop();
    await scripted?.close();
    rmSync(root, { recursive: true, force: true });
  }
}

interface JobView {
  id: string;
  status: string;
  prLink: string | null;
  error: string | null;
}

type Client = ReturnType<typeof apiClient>;

function apiClient(url: string, key: string) {
  return async <Body>(method: string, path: string, body?: unknown): Promise<Body> => {
    const response = await fetch(`${url}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    const answer = (await response.json()) as Body & { error?: string };
    if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${answer.error}`);
    return answer;
  };
}

async function runTask(task: EvalTask, api: Client, projectId: string, repository: string, runTimeoutMs: number) {
  const jobs = `/v2/agent/${projectId}/job`;
  const statuses: string[] = [];
  const prLinks: (string | null)[] = [];
  let job: JobView | null = null;
  for (const prompt of task.prompts) {
    job = job ? await api<JobView>('POST', `${jobs}/${job.id}/message`, { prompt }) : await api<JobView>('POST', jobs, { prompt });
    const deadline = Date.now() + runTimeoutMs;
    while (job.status === 'active') {
      if (Date.now() > deadline) throw new Error(`job ${job.id} was still active after ${runTimeoutMs / 1000} s`);
      await new Promise((resolve) => setTimeout(resolve, 100));
      job = await api<JobView>('GET', `${jobs}/${job.id}`);
    }
    statuses.push(job.status);
    prLinks.push(job.prLink);
    if (job.status !== 'completed') break;
  }
  const { messages } = await api<{ messages: { role: string; content: { text?: string } }[] }>('GET', `${jobs}/${job!.id}/messages`);
  const answers = messages.filter((message) => message.role === 'assistant');
  const outcome: Outcome = {
    branch: Branch.find(repository, `quire/${job!.id}`),
    base: new Branch(repository, 'main'),
    statuses,
    prLinks,
    error: job!.error,
    answer: answers[answers.length - 1]?.content.text ?? '',
  };
  const steps = messages.filter((message) => message.role === 'tool').length + statuses.length;
  return { reasons: await task.grade(outcome), steps, jobId: job!.id };
}
