import { enableCompileCache } from 'node:module';
import { Command } from 'commander';
import type { EnvFile } from '../config/env-file.ts';
import { ConfigError } from '../config/parsers.ts';
import { commandDescriptions, type CommandName } from './commands.ts';
import { loadSettingsFile } from './environment.ts';
import { CliError } from './output.ts';
import { useBundledKysely } from '../lib/bundled-kysely.ts';

type Register = (program: Command, settingsFile: () => EnvFile | null) => void;

/**
 * Each verb module and the top-level commands it adds. Only the module of the command being run is
 * loaded: the others (and --help) need no more than the names and descriptions in commands.ts, so a
 * verb starts without importing every other verb's dependencies (the HTTP server, code-host clients,
 * the analytics pipeline).
 */
const modules: { commands: CommandName[]; load: () => Promise<Register> }[] = [
  { commands: ['serve', 'worker'], load: async () => (await import('./serve.ts')).registerServe },
  { commands: ['config'], load: async () => (await import('./config.ts')).registerConfig },
  { commands: ['migrate'], load: async () => (await import('./migrate.ts')).registerMigrate },
  { commands: ['backup', 'restore'], load: async () => (await import('./backup.ts')).registerBackup },
  { commands: ['orgs', 'projects'], load: async () => (await import('./accounts.ts')).registerAccounts },
  { commands: ['keys'], load: async () => (await import('./keys.ts')).registerKeys },
  { commands: ['connections'], load: async () => (await import('./tenancy.ts')).registerConnections },
  { commands: ['dashboard'], load: async () => (await import('./dashboard.ts')).registerDashboard },
  { commands: ['analytics'], load: async () => (await import('./analytics.ts')).registerAnalytics },
  { commands: ['jobs'], load: async () => (await import('./jobs.ts')).registerJobs },
  { commands: ['docs'], load: async () => (await import('./docs.ts')).registerDocs },
  { commands: ['proxy'], load: async () => (await import('./proxy.ts')).registerProxy },
  { commands: ['webhooks'], load: async () => (await import('./webhooks.ts')).registerWebhooks },
];

/** The top-level command the arguments name (`quire help orgs` names orgs), if any. */
function commandNamed(args: string[]): string | undefined {
  const words = args.filter((arg) => !arg.startsWith('-'));
  return words[0] === 'help' ? words[1] : words[0];
}

// Node keeps the code it compiles (types stripped) on disk, so later starts skip stripping and compiling the
// verb's modules, loaded below (bin/quire.js turns it on before this file; `npm start` and `npm run quire` start here).
// Worker threads (an import's reading thread, parse threads) and child processes find the cache in the environment.
const compileCache = enableCompileCache();
if (compileCache.directory) process.env.NODE_COMPILE_CACHE ??= compileCache.directory;

// Before any verb's module loads: Kysely as one file starts ~0.2 s faster (lib/bundled-kysely.ts).
useBundledKysely();

const program = new Command()
  .name('quire')
  .description('Quire: agent jobs for documentation repositories, and visitor analytics split into human and AI traffic.')
  .showHelpAfterError();

let settingsFile: EnvFile | null = null;

try {
  const named = commandNamed(process.argv.slice(2));
  for (const module of modules) {
    if (module.commands.includes(named as CommandName)) (await module.load())(program, () => settingsFile);
    else for (const name of module.commands) program.command(name).description(commandDescriptions[name]);
  }
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
