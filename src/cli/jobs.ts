import { setTimeout as sleep } from 'node:timers/promises';
import type { Command } from 'commander';
import { topCommand } from './commands.ts';
import { readEventStream } from '../lib/event-stream.ts';
import { apiClient, Unreachable, type ApiClient } from './api-client.ts';
import { CliError, print, table } from './output.ts';

interface Job {
  id: string;
  status: string;
  source: { repository: string; ref: string | null };
  model: string;
  prLink: string | null;
  createdAt: string;
  error: string | null;
}

interface Entry {
  seq: number;
  role: string;
  content: Record<string, unknown>;
}

/** Exit code of `wait` (and `create --wait`) when the job ends failed: 1 stays for errors of the CLI itself. */
const jobFailedExitCode = 2;
/** Reconnections in a row before `wait` gives up on a stream that keeps dropping. */
const maxReconnects = 20;

const jobPath = (project: string, id = '') => `/v2/agent/${encodeURIComponent(project)}/job${id ? `/${encodeURIComponent(id)}` : ''}`;

function describeJob(job: Job): string {
  const lines = [`${job.id}  ${job.status}  ${job.model}  ${job.source.repository}${job.source.ref ? `@${job.source.ref}` : ''}`];
  if (job.prLink) lines.push(`pull request: ${job.prLink}`);
  if (job.error) lines.push(`error: ${job.error}`);
  return lines.join('\n');
}

const oneLine = (text: unknown, max = 120) => {
  const flat = String(text ?? '').replaceAll('\n', ' ');
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
};

/** A transcript entry as a line or paragraph of the live output of `wait`. */
export function describeEntry(entry: Entry): string {
  const content = entry.content;
  if (entry.role === 'user') return `> ${String(content.text ?? '')}`;
  if (entry.role === 'assistant') return String(content.text ?? '');
  if (entry.role === 'tool')
    return `  · ${String(content.tool)} ${oneLine(JSON.stringify(content.input ?? {}), 80)} → ${oneLine(content.result ?? content.error, 80)}`;
  return `  [${String(content.type ?? 'event')}]${content.error ? ` ${String(content.error)}` : ''}`;
}

/**
 * Follows a job's event stream to its end, printing each entry (or, with --json, each event as one
 * JSON line); reconnects with Last-Event-ID when the connection drops. Returns the final job.
 */
async function follow(client: ApiClient, project: string, id: string, json: boolean): Promise<Job> {
  let lastId: string | null = null;
  let job: Job | null = null;
  for (let failures = 0; ;) {
    try {
      const response = await client.open(`${jobPath(project, id)}/events`, lastId === null ? {} : { 'last-event-id': lastId });
      for await (const message of readEventStream(response.body as AsyncIterable<Uint8Array>)) {
        failures = 0;
        lastId = message.id ?? lastId;
        const data = JSON.parse(message.data) as Job & Entry;
        if (json) process.stdout.write(`${JSON.stringify({ id: Number(message.id), event: message.event, data })}\n`);
        else if (message.event === 'message') process.stdout.write(`${describeEntry(data)}\n`);
        else process.stdout.write(`  status: ${data.status}\n`);
        if (message.event === 'status') job = data;
      }
      // The server ends the stream once the job stopped being active.
      if (job && job.status !== 'active') return job;
      const current = await client.request<Job>('GET', jobPath(project, id));
      if (current.status !== 'active') return current;
      // The connection closed early (a proxy's timeout, say): resume.
      throw new Error('stream closed before the job ended');
    } catch (error) {
      if ((error instanceof CliError && !(error instanceof Unreachable)) || ++failures > maxReconnects) throw error;
      process.stderr.write(`connection lost (${(error as Error).message}); resuming${lastId === null ? '' : ` after event ${lastId}`}\n`);
      await sleep(Math.min(5000, 250 * 2 ** failures));
    }
  }
}

function finish(job: Job, json: boolean, printed: boolean): void {
  if (!printed) print({ json }, job, () => describeJob(job));
  else if (!json) process.stdout.write(`${describeJob(job)}\n`);
  if (job.status === 'failed') process.exitCode = jobFailedExitCode;
}

export function registerJobs(program: Command): void {
  const jobs = topCommand(program, 'jobs');
  const projectOption = ['--project <id>', 'project id (prj_…)'] as const;

  jobs
    .command('create')
    .description('Create a job; with --wait, print its live transcript until it ends')
    .requiredOption(...projectOption)
    .requiredOption('--prompt <text>', 'what the agent should do')
    .option('--ref <ref>', 'branch or ref to start from')
    .option('--branch <name>', 'work branch (default quire/<job id>)')
    .option('--draft', 'open the pull request as draft')
    .option('--model <model>', 'a model the operator allows for the project')
    .option('--idempotency-key <key>', 'replaying the same key and body returns the same job')
    .option('--wait', 'follow the job until it ends; exit code 2 when it failed')
    .option('--json', 'print JSON')
    .action(
      async (flags: {
        project: string;
        prompt: string;
        ref?: string;
        branch?: string;
        draft?: boolean;
        model?: string;
        idempotencyKey?: string;
        wait?: boolean;
        json?: boolean;
      }) => {
        const client = apiClient();
        const body = { prompt: flags.prompt, ref: flags.ref, branch: flags.branch, draft: flags.draft, model: flags.model };
        const headers: Record<string, string> = flags.idempotencyKey ? { 'idempotency-key': flags.idempotencyKey } : {};
        const job = await client.request<Job>('POST', jobPath(flags.project), body, headers);
        if (!flags.wait) return print(flags, job, () => describeJob(job));
        if (!flags.json) process.stdout.write(`Created ${job.id}; following it (Ctrl-C stops following, not the job).\n`);
        finish(await follow(client, flags.project, job.id, Boolean(flags.json)), Boolean(flags.json), true);
      },
    );

  jobs
    .command('get')
    .description('Show a job')
    .argument('<id>', 'job id (job_…)')
    .requiredOption(...projectOption)
    .option('--json', 'print JSON')
    .action(async (id: string, flags: { project: string; json?: boolean }) => {
      const job = await apiClient().request<Job>('GET', jobPath(flags.project, id));
      print(flags, job, () => describeJob(job));
    });

  jobs
    .command('wait')
    .description('Print a job’s live transcript until it ends (resuming when the connection drops); exit code 2 when it failed')
    .argument('<id>', 'job id (job_…)')
    .requiredOption(...projectOption)
    .option('--json', 'print each event as a JSON line')
    .action(async (id: string, flags: { project: string; json?: boolean }) => {
      finish(await follow(apiClient(), flags.project, id, Boolean(flags.json)), Boolean(flags.json), true);
    });

  jobs
    .command('cancel')
    .description('Cancel an active job (it ends failed; nothing is pushed after the cancel)')
    .argument('<id>', 'job id (job_…)')
    .requiredOption(...projectOption)
    .option('--json', 'print JSON')
    .action(async (id: string, flags: { project: string; json?: boolean }) => {
      const job = await apiClient().request<Job>('POST', `${jobPath(flags.project, id)}/cancel`);
      print(flags, job, () => describeJob(job));
    });

  jobs
    .command('list')
    .description('List jobs, newest first')
    .requiredOption(...projectOption)
    .option('--status <status>', 'active, completed, failed or archived')
    .option('--limit <n>', 'jobs per page (1-100)', '20')
    .option('--cursor <cursor>', 'nextCursor of the previous page')
    .option('--json', 'print JSON')
    .action(async (flags: { project: string; status?: string; limit: string; cursor?: string; json?: boolean }) => {
      const query = new URLSearchParams({ limit: flags.limit });
      if (flags.status) query.set('status', flags.status);
      if (flags.cursor) query.set('cursor', flags.cursor);
      const page = await apiClient().request<{ jobs: Job[]; nextCursor: string | null }>(
        'GET',
        `/v2/agent/${encodeURIComponent(flags.project)}/jobs?${query.toString()}`,
      );
      print(flags, page, () => {
        const rows = page.jobs.map((job) => ({ id: job.id, status: job.status, model: job.model, created: job.createdAt, pr: job.prLink }));
        return `${table(rows, ['id', 'status', 'model', 'created', 'pr'])}${page.nextCursor ? `\nnext page: --cursor ${page.nextCursor}` : ''}`;
      });
    });
}
