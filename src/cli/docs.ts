import { setTimeout as sleep } from 'node:timers/promises';
import type { Command } from 'commander';
import { topCommand } from './commands.ts';
import { apiClient } from './api-client.ts';
import { print } from './output.ts';

interface DocsStatus {
  status: 'none' | 'building' | 'ready' | 'failed';
  commit: string | null;
  builtAt: string | null;
  pages: number;
  sections: number;
  error: string | null;
  pageErrors: { path: string; message: string }[];
}

/** Exit code of `refresh --wait` when the build failed, as `jobs wait` uses for a failed job. */
const buildFailedExitCode = 2;
const waitPollMs = 1000;

const docsPath = (project: string, tail = '') => `/v1/docs/${encodeURIComponent(project)}${tail}`;

function describeStatus(state: DocsStatus): string {
  const built = state.commit ? `${state.commit.slice(0, 12)}, built ${state.builtAt}, ${state.pages} pages, ${state.sections} sections` : 'nothing built yet';
  const lines = [`${state.status}  (${built})`];
  if (state.error) lines.push(`error: ${state.error}`);
  if (state.pageErrors.length > 0)
    lines.push(`page errors (${state.pageErrors.length}):`, ...state.pageErrors.map((error) => `  ${error.path}: ${error.message}`));
  return lines.join('\n');
}

export function registerDocs(program: Command): void {
  const docs = topCommand(program, 'docs');
  const projectOption = ['--project <id>', 'project id (prj_…)'] as const;

  docs
    .command('status')
    .description('Show the state of the docs index: the commit it answers from, its pages, the last error')
    .requiredOption(...projectOption)
    .option('--json', 'print JSON')
    .action(async (flags: { project: string; json?: boolean }) => {
      const state = await apiClient().request<DocsStatus>('GET', docsPath(flags.project));
      print(flags, state, () => describeStatus(state));
    });

  docs
    .command('refresh')
    .description('Build the docs index from the repository now; with --wait, follow the build until it ends (exit code 2 when it failed)')
    .requiredOption(...projectOption)
    .option('--wait', 'wait for the build to end')
    .option('--json', 'print JSON')
    .action(async (flags: { project: string; wait?: boolean; json?: boolean }) => {
      const client = apiClient();
      let state = await client.request<DocsStatus>('POST', docsPath(flags.project, '/refresh'));
      if (flags.wait) {
        if (!flags.json) process.stdout.write('Building the docs index');
        while (state.status === 'building') {
          await sleep(waitPollMs);
          state = await client.request<DocsStatus>('GET', docsPath(flags.project));
          if (!flags.json) process.stdout.write('.');
        }
        if (!flags.json) process.stdout.write('\n');
        if (state.status === 'failed') process.exitCode = buildFailedExitCode;
      }
      print(flags, state, () => describeStatus(state));
    });
}
