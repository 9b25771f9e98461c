import type { Command } from 'commander';

/**
 * The top-level commands and their one-line descriptions, in the order `quire --help` lists them. They
 * live apart from the verbs' modules so that help can list every command without loading any verb.
 */
export const commandDescriptions = {
  serve: 'Run the HTTP API, dashboard and a worker (the default way to run Quire)',
  worker: 'Run a worker only: claims and runs agent jobs from the shared database',
  config: 'Show every setting, its value (secrets masked) and where it came from: environment, settings file or default',
  migrate: 'Apply pending database migrations (serve and worker also do this at start)',
  backup: 'Copy the SQLite database to FILE, consistently, while the server runs (PostgreSQL: use pg_dump)',
  restore: 'Replace the SQLite database with the backup FILE; every Quire process on it must be stopped (PostgreSQL: use pg_restore)',
  orgs: 'Organizations, which own projects and keys, and what the operator lets them reach',
  projects: 'Projects: a documentation repository and its analytics',
  keys: "API keys: admin keys, and assistant keys that read one project's docs",
  connections: "Organizations' own code-host credentials (tokens stored encrypted with QUIRE_SECRET_KEY)",
  dashboard: 'The web dashboard served at /dashboard',
  analytics: 'Visitor analytics: import or follow access logs, rebuild visitor sets, refresh crawler IP ranges',
  jobs: 'Agent jobs through the HTTP API (QUIRE_API_KEY; QUIRE_URL, default http://HOST:PORT on this machine)',
  docs: 'The docs index of a project, through the HTTP API (QUIRE_API_KEY; QUIRE_URL, default http://HOST:PORT on this machine)',
  proxy:
    'Reverse proxy in front of a docs site that records every request it forwards as analytics, and serves llms.txt, Markdown pages and the search MCP server at the site root while the docs are public (status: GET /.quire/proxy-status from this machine)',
  webhooks: "A project's signed webhook endpoints and their deliveries",
} as const;

export type CommandName = keyof typeof commandDescriptions;

/** Adds the top-level command `name` to the program, with its description. */
export function topCommand(program: Command, name: CommandName): Command {
  return program.command(name).description(commandDescriptions[name]);
}
