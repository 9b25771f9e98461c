import type { Command } from 'commander';
import { topCommand } from './commands.ts';
import { storageConfig } from './database.ts';
import { onStopSignals } from './stop-signals.ts';

/**
 * The service's modules (the HTTP server, every feature, the worker), loaded when a command runs
 * one: importing them takes about a second, which every other command (an import, a key, --help)
 * would otherwise pay at its start.
 */
const serviceModules = () => import('../server/service.ts');

function onShutdownSignal(stop: () => Promise<void>): void {
  // A hang-up (the terminal closed, or a supervisor passing it on) stops gracefully too, not at once; a repeat
  // exits at once, for whoever does not want to wait for running jobs.
  onStopSignals(
    (signal) => {
      process.stderr.write(`Received ${signal}: finishing running jobs, then exiting (send it again to exit at once).\n`);
      stop().then(
        () => process.exit(0),
        (error) => {
          process.stderr.write(`Shutdown failed: ${error instanceof Error ? error.message : String(error)}\n`);
          process.exit(1);
        },
      );
    },
    () => process.exit(1),
    ['SIGTERM', 'SIGINT', 'SIGHUP'],
  );
}

export function registerServe(program: Command): void {
  topCommand(program, 'serve')
    .option('--no-worker', 'serve the API only; run workers with "quire worker"')
    .action(async (options: { worker: boolean }) => {
      const config = storageConfig(true);
      const { startService } = await serviceModules();
      const { createSignInLink, signInUrl } = await import('../accounts/people/sessions.ts');
      const service = await startService({ config, api: true, worker: options.worker && config.worker, bootstrap: true });
      const { firstRun } = service;
      // One write, so whoever reads the output sees the first-start block with the listening line.
      const lines = [`Quire is listening on ${service.url} (${service.context.storage.profile.name}${service.worker ? ', with a worker' : ', API only'}).`];
      if (firstRun) {
        const link = await createSignInLink(service.context.storage.db, firstRun.orgId, config.dashboardLinkMinutes);
        lines.push(
          '',
          'First start: created an organization, a project and an admin API key.',
          `  Project id:    ${firstRun.projectId}`,
          `  Admin API key: ${firstRun.key}`,
          `  Dashboard:     ${signInUrl(service.url!, link.token)}`,
          'The key is shown only this once; store it now. Create more with "quire keys create".',
          `The dashboard link signs a browser in once, until ${link.expiresAt.toISOString()}; "quire dashboard link" prints a new one.`,
        );
      } else {
        lines.push(
          `Dashboard: ${service.url}/dashboard (people sign in there with a passkey or password; "npx quire dashboard link" prints a one-time sign-in link).`,
        );
      }
      // Stop signals are handled before the listening line is out: a supervisor that signals as soon as it reads it stops Quire gracefully.
      onShutdownSignal(service.stop);
      process.stdout.write(`${lines.join('\n')}\n`);
    });

  topCommand(program, 'worker').action(async () => {
    const config = storageConfig(true);
    const { startService } = await serviceModules();
    const service = await startService({ config, api: false, worker: true });
    onShutdownSignal(service.stop);
    process.stdout.write(`Quire worker ${service.worker?.id} started (${service.context.storage.profile.name}, concurrency ${config.workerConcurrency}).\n`);
  });
}
