import type { Command } from 'commander';
import { loadMigrations } from '../storage/migrate.ts';
import { topCommand } from './commands.ts';
import { withStorage } from './database.ts';

/** `quire migrate`: applies pending migrations (opening the database does) and prints the version reached. */
export function registerMigrate(program: Command): void {
  topCommand(program, 'migrate')
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
}
