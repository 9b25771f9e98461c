/**
 * Every setting Quire reads, as one table: environment variable, default, parser and the sentence
 * that documents it. Each area keeps its part of the table in a file of its own (server.ts, cli.ts,
 * storage.ts, analytics.ts, jobs.ts, agent.ts, dashboard.ts, docs-serving.ts, docs-builds.ts, assistant.ts, code-hosts.ts); `settings` joins them,
 * so there is still one `Config`, and `loadConfig` reads the environment once at start-up and fails
 * with a message that says which variable to fix. `docs/configuration.md` lists the same table (a
 * test keeps the two in sync).
 */

import { agentSettings } from './agent.ts';
import { analyticsSettings } from './analytics.ts';
import { assistantSettings } from './assistant.ts';
import { cliSettings } from './cli.ts';
import { codeHostSettings } from './code-hosts.ts';
import { dashboardSettings } from './dashboard.ts';
import { docsServingSettings } from './docs-serving.ts';
import { docsBuildSettings } from './docs-builds.ts';
import { jobSettings } from './jobs.ts';
import { ConfigError, type Setting } from './parsers.ts';
import { serverSettings } from './server.ts';
import { storageSettings } from './storage.ts';

export const settings = {
  ...serverSettings,
  ...cliSettings,
  ...storageSettings,
  ...analyticsSettings,
  ...jobSettings,
  ...agentSettings,
  ...dashboardSettings,
  ...docsServingSettings,
  ...assistantSettings,
  ...codeHostSettings,
  ...docsBuildSettings,
};

type Settings = typeof settings;
export type Config = { [K in keyof Settings]: Settings[K]['default'] };

const wildcardHosts = new Set(['0.0.0.0', '::', '0:0:0:0:0:0:0:0']);

/** Reads every setting from `environment` (default `process.env`); `overrides` win over both. */
export function loadConfig(environment: NodeJS.ProcessEnv = process.env, overrides: Partial<Config> = {}): Config {
  const config: Record<string, unknown> = {};
  for (const [key, entry] of Object.entries(settings) as [string, Setting<unknown>][]) {
    const raw = environment[entry.env];
    config[key] = raw === undefined ? entry.default : entry.parse(raw, entry.env);
  }
  const result = { ...(config as Config), ...overrides };
  if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(result.logLevel)) {
    throw new ConfigError(`LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent; got "${result.logLevel}".`);
  }
  // Links built from a wildcard address (sign-in links, a local repository's prLink) would lead nowhere.
  if (result.publicUrl === undefined && wildcardHosts.has(result.host.replace(/^\[|\]$/g, ''))) {
    throw new ConfigError(
      `HOST is ${result.host}, which listens on every interface but is no address a browser can open: set QUIRE_PUBLIC_URL to the URL people and clients use to reach Quire (for example http://quire.example.internal:${result.port}), so the links Quire prints and saves work.`,
    );
  }
  return result;
}

/** `http://HOST:PORT`, an IPv6 host in brackets (given with or without them). */
function hostUrl(host: string, port: number): string {
  const bare = host.replace(/^\[|\]$/g, '');
  return `http://${bare.includes(':') ? `[${bare}]` : bare}:${port}`;
}

export function publicUrl(config: Config): string {
  return config.publicUrl ?? hostUrl(config.host, config.port);
}

/** The server's listener as reached from its own machine (the CLI's API calls): a wildcard HOST on loopback. */
export function localListenerUrl(config: Config): string {
  const host = config.host.replace(/^\[|\]$/g, '');
  if (!wildcardHosts.has(host)) return hostUrl(host, config.port);
  return hostUrl(host.includes(':') ? '::1' : '127.0.0.1', config.port);
}
