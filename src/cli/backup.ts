import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { topCommand } from './commands.ts';
import type { Config } from '../config/config.ts';
import { sqlitePath } from '../storage/open.ts';
import { backupSqlite, DatabaseInUseError, restoreSqlite, type BackupProgress } from '../storage/sqlite/backup.ts';
import { secretKeyPath, usesStoredSecretKey } from '../config/secret-key-file.ts';
import { cliConfig, databaseName } from './database.ts';
import { CliError, print } from './output.ts';

/** On PostgreSQL the database's own tools do this, consistently and with every option an operator needs. */
function refusePostgres(config: Config, verb: 'backup' | 'restore'): void {
  if (!config.databaseUrl) return;
  const how =
    verb === 'backup'
      ? 'pg_dump --format=custom --file=quire.dump "$DATABASE_URL"'
      : 'pg_restore --clean --if-exists --no-owner --dbname="$DATABASE_URL" quire.dump (with every Quire process stopped)';
  throw new CliError(`quire ${verb} works on the SQLite database only; this configuration uses the ${databaseName(config)}. Use PostgreSQL's tools: ${how}.`);
}

const megabytes = (bytes: number) => `${(bytes / 1_048_576).toFixed(1)} MB`;

/**
 * Progress of a copy on standard error: one line redrawn in place on a terminal, a plain line per tenth
 * otherwise (logs of a scheduled backup). Copies that finish within a second show nothing.
 */
function progressLine(): { update(progress: BackupProgress): void; stop(): void } {
  const started = Date.now();
  const tty = process.stderr.isTTY === true;
  let shown = false;
  let lastTenth = -1;
  return {
    update({ totalPages, remainingPages, pageBytes }) {
      if (Date.now() - started < 1000 || totalPages === 0) return;
      const done = totalPages - remainingPages;
      const tenth = Math.floor((done / totalPages) * 10);
      if (!tty && tenth === lastTenth) return;
      lastTenth = tenth;
      shown = true;
      const text = `backing up: ${Math.floor((done / totalPages) * 100)}% (${megabytes(done * pageBytes)} of ${megabytes(totalPages * pageBytes)})`;
      process.stderr.write(tty ? `\r\x1b[2K${text}` : `${text}\n`);
    },
    stop() {
      if (shown && tty) process.stderr.write('\n');
    },
  };
}

export function registerBackup(program: Command): void {
  topCommand(program, 'backup')
    .argument('<file>', 'where to write the copy')
    .option('--force', 'replace FILE when it exists')
    .option('--json', 'print JSON')
    .action(async (file: string, flags: { force?: boolean; json?: boolean }) => {
      const config = cliConfig();
      refusePostgres(config, 'backup');
      const source = sqlitePath(config.dataDir);
      const destination = resolve(file);
      if (!existsSync(source)) throw new CliError(`There is no database at ${source} to back up; set QUIRE_DATA_DIR to the server's data directory.`);
      if (destination === source) throw new CliError('FILE is the database itself; name another file.');
      if (existsSync(destination) && !flags.force) throw new CliError(`${destination} exists; pass --force to replace it, or name another file.`);
      const progress = progressLine();
      let pages: number;
      try {
        pages = await backupSqlite(source, destination, progress.update);
      } finally {
        progress.stop();
      }
      const bytes = statSync(destination).size;
      const keyFile = secretKeyPath(config.dataDir);
      // The key that seals stored secrets is a file beside the database, not in it: say so where backups are made.
      const keyNote =
        usesStoredSecretKey(config) && existsSync(keyFile)
          ? `\nThe secret key ${keyFile} is not in the backup: keep a copy of it with the backup, or the stored tokens and secrets cannot be opened after a restore.`
          : '';
      print(flags, { database: source, file: destination, pages, bytes }, () => `Backed up ${source} (${megabytes(bytes)}) to ${destination}.${keyNote}`);
    });

  topCommand(program, 'restore')
    .argument('<file>', 'a file written by quire backup')
    .option('--json', 'print JSON')
    .action((file: string, flags: { json?: boolean }) => {
      const config = cliConfig();
      refusePostgres(config, 'restore');
      const source = resolve(file);
      const target = sqlitePath(config.dataDir);
      if (!existsSync(source)) throw new CliError(`There is no file ${source} to restore.`);
      if (source === target) throw new CliError('FILE is the database itself; name a backup file.');
      try {
        restoreSqlite(source, target);
      } catch (error) {
        if (error instanceof DatabaseInUseError) {
          throw new CliError(
            `${target} is in use by a running Quire process (quire serve, quire worker, or another verb): stop it, then run quire restore again.`,
          );
        }
        throw new CliError(`Could not restore ${source}: ${error instanceof Error ? error.message : String(error)}`);
      }
      print(flags, { file: source, database: target }, () => `Restored ${target} from ${source}. Start Quire again to use it.`);
    });
}
