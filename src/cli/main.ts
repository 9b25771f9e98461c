import { Command } from 'commander';
import type { EnvFile } from '../config/env-file.ts';
import { ConfigError } from '../config/parsers.ts';
import { registerAccounts } from './accounts.ts';
import { registerKeys } from './keys.ts';
import { registerAnalytics } from './analytics.ts';
import { registerBackup } from './backup.ts';
import { registerConfig } from './config.ts';
import { registerDashboard } from './dashboard.ts';
import { registerDocs } from './docs.ts';
import { registerJobs } from './jobs.ts';
import { withStorage } from './database.ts';
import { loadSettingsFile } from './environment.ts';
import { CliError } from './output.ts';
import { registerProxy } from './proxy.ts';
import { registerServe } from './serve.ts';
import { registerConnections } from './tenancy.ts';
import { registerWebhooks } from './webhooks.ts';
import { loadMigrations } from '../storage/migrate.ts';

const program = new Command()
  .name('quire')
  .description('Quire: agent jobs for documentation repositories, and visitor analytics split into human and AI traffic.')
  .showHelpAfterError();

let settingsFile: EnvFile | null = null;
registerServe(program);
registerConfig(program, () => settingsFile);
program
  .command('migrate')
  .description('Apply pending database migrations (serve and worker also do this at start)')
  .option('--json', 'print JSON')
  .action((flags: { json?: boolean }) =>
    withStorage(async (storage) => {
      const versions = loadMigrations(storage.profile.name).map((migration) => `${String(migration.version).padStart(3, '0')}_${migration.name}`);
      process.stdout.write(
        flags.json
          ? `${JSON.stringify({ dialect: storage.profile.name, migrations: versions })}\n`
          : `Database (${storage.profile.name}) is at ${versions.at(-1)}.\n`,
      );
    }),
  );
registerBackup(program);
registerAccounts(program);
registerKeys(program);
registerConnections(program);
registerDashboard(program);
registerAnalytics(program);
registerJobs(program);
registerDocs(program);
registerProxy(program);
registerWebhooks(program);

try {
  settingsFile = loadSettingsFile();
  await program.parseAsync(process.argv);
} catch (error) {
  if (error instanceof CliError || error instanceof ConfigError) {
    process.stderr.write(`${error.message}\n`);
  } else {
    process.stderr.write(`quire: ${error instanceof Error ? error.message : String(error)}\n`);
  }
  process.exitCode = 1;
}
