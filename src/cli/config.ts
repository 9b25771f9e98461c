import type { Command } from 'commander';
import { topCommand } from './commands.ts';
import { loadConfig, settings } from '../config/config.ts';
import type { EnvFile } from '../config/env-file.ts';
import { ConfigError, type Setting } from '../config/parsers.ts';
import { secretKeyPath, usesStoredSecretKey, withStoredSecretKey } from '../config/secret-key-file.ts';
import { cliConfig } from './database.ts';
import { CliError, print, table } from './output.ts';

type Shown = {
  name: string;
  value: string;
  source: string;
  problem?: string;
};

/** A default as docs/configuration.md writes it. */
function shownDefault(value: unknown): string {
  if (value === undefined || (Array.isArray(value) && value.length === 0)) return '(unset)';
  return Array.isArray(value) ? value.join(',') : String(value);
}

function shown(entry: Setting<unknown>, environment: NodeJS.ProcessEnv, file: EnvFile | null): Shown {
  const raw = environment[entry.env];
  if (raw === undefined) return { name: entry.env, value: shownDefault(entry.default), source: 'default' };
  const value = raw === '' ? '(empty)' : entry.mask ? entry.mask(raw) : raw;
  const source = file?.names.has(entry.env) ? `file ${file.path}` : 'environment';
  try {
    entry.parse(raw, entry.env);
    return { name: entry.env, value, source };
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return { name: entry.env, value, source, problem: error.message };
  }
}

/** The secret key's row when Quire uses the one it keeps in the data directory. */
function storedKeyRow(row: Shown): Shown {
  const config = cliConfig();
  if (!usesStoredSecretKey(config)) return row;
  const path = secretKeyPath(config.dataDir);
  return withStoredSecretKey(config, false).secretKey
    ? { ...row, value: '****', source: `data directory ${path}` }
    : { ...row, value: '(made at the first start)', source: `data directory ${path}` };
}

/** `quire config`: every setting's value (secrets masked) and where it came from. */
export function registerConfig(program: Command, settingsFile: () => EnvFile | null): void {
  topCommand(program, 'config')
    .option('--json', 'print JSON')
    .action((flags: { json?: boolean }) => {
      const file = settingsFile();
      const rows = Object.values(settings).map((entry) => shown(entry as Setting<unknown>, process.env, file));
      const problems = rows.flatMap((row) => (row.problem ? [row.problem] : []));
      if (problems.length === 0) {
        try {
          loadConfig(process.env);
        } catch (error) {
          if (!(error instanceof ConfigError)) throw error;
          problems.push(error.message);
        }
      }
      const keyRow = rows.findIndex((row) => row.name === settings.secretKey.env);
      if (problems.length === 0 && rows[keyRow].source === 'default') rows[keyRow] = storedKeyRow(rows[keyRow]);
      print(flags, { file: file?.path ?? null, settings: rows, problems }, () =>
        [file ? `Settings file: ${file.path}` : 'Settings file: none', '', table(rows, ['name', 'value', 'source'])].join('\n'),
      );
      if (problems.length > 0) throw new CliError(problems.join('\n'));
    });
}
