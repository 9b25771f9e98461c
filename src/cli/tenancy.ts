import type { Command } from 'commander';
import { topCommand } from './commands.ts';
import type { Kysely } from 'kysely';
import { addConnection, connectionView, listConnections, reencryptConnections, removeConnection } from '../accounts/connections.ts';
import { grantLocal, isTrusted, listLocalGrants, revokeLocal, setServerCredentials } from '../accounts/local-grants.ts';
import { findOrganization } from '../accounts/organizations.ts';
import { connectionKinds, type ConnectionKind, type OrganizationRow } from '../storage/tables/accounts.ts';
import type { Config } from '../config/config.ts';
import type { Database } from '../storage/schema.ts';
import { withStorage } from './database.ts';
import { CliError, print, table } from './output.ts';

async function organizationOf(db: Kysely<Database>, id: string): Promise<OrganizationRow> {
  const organization = await findOrganization(db, id);
  if (!organization) throw new CliError(`No organization has the id ${id}; "quire orgs list" shows them.`);
  return organization;
}

/** What an organization may reach, as `orgs list` and `orgs show` print it. */
export async function organizationView(db: Kysely<Database>, config: Config, organization: OrganizationRow) {
  return {
    id: organization.id,
    name: organization.name,
    createdAt: new Date(organization.created_at).toISOString(),
    trusted: isTrusted(organization, config.trustFirstOrganization),
    // A trusted organization uses the server-wide credentials as one granted them does (code-hosts/access.ts).
    serverCredentials: organization.server_credentials === 1 || isTrusted(organization, config.trustFirstOrganization),
    localRepositories: (await listLocalGrants(db, organization.id)).map((grant) => grant.path),
  };
}

/** Reads a token from standard input (`… | quire connections add`), so it never appears in the process list or shell history. */
async function readToken(): Promise<string> {
  if (process.stdin.isTTY) process.stderr.write('Paste the token, then press Enter and Ctrl-D: ');
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  const token = Buffer.concat(chunks).toString('utf8').trim();
  if (!token) throw new CliError('No token was given: pipe it on standard input, for example "printenv DOCS_TOKEN | quire connections add …".');
  return token;
}

/** `quire orgs show|grant-local|revoke-local|grant-server-credentials|revoke-server-credentials`. */
export function registerGrants(orgs: Command): void {
  orgs
    .command('show')
    .argument('<org>', 'organization id')
    .option('--json', 'print JSON')
    .action((id: string, flags: { json?: boolean }) =>
      withStorage(async ({ db }, config) => {
        const organization = await organizationOf(db, id);
        const view = { ...(await organizationView(db, config, organization)), connections: (await listConnections(db, organization.id)).map(connectionView) };
        print(flags, view, () =>
          [
            `${view.id} (${view.name}), created ${view.createdAt}${view.trusted ? ', trusted by QUIRE_TRUST_FIRST_ORGANIZATION' : ''}`,
            `Server-wide credentials: ${view.serverCredentials ? 'granted' : 'not granted'}`,
            `Local repositories under: ${view.localRepositories.join(', ') || '(none)'}`,
            'Code-host connections:',
            table(view.connections, ['id', 'kind', 'account', 'createdAt']),
          ].join('\n'),
        );
      }),
    );
  const grant = (
    name: string,
    description: string,
    action: (db: Kysely<Database>, config: Config, organization: OrganizationRow, path: string) => Promise<string>,
  ) =>
    orgs
      .command(name)
      .description(description)
      .argument('<org>', 'organization id')
      .argument('<path>', 'directory')
      .action((id: string, path: string) =>
        withStorage(async ({ db }, config) => {
          process.stdout.write(`${await action(db, config, await organizationOf(db, id), path)}\n`);
        }),
      );
  grant('grant-local', 'let the organization use the local repositories under a directory', async (db, config, organization, path) => {
    const row = await grantLocal(db, config.dataDir, organization.id, path).catch((error: Error) => Promise.reject(new CliError(error.message)));
    return `Organization ${organization.id} may now use local repositories under ${row.path}.`;
  });
  grant('revoke-local', 'withdraw a directory granted with grant-local', async (db, _config, organization, path) => {
    if (!(await revokeLocal(db, organization.id, path)))
      throw new CliError(`Organization ${organization.id} has no grant for ${path}; "quire orgs show ${organization.id}" lists its grants.`);
    return `Withdrew ${path} from ${organization.id}; its jobs on repositories there now fail when they start.`;
  });
  for (const [name, allowed] of [
    ['grant-server-credentials', true],
    ['revoke-server-credentials', false],
  ] as const) {
    orgs
      .command(name)
      .description(allowed ? 'let the organization use GITHUB_TOKEN, GITHUB_APP_* and GITLAB_TOKEN' : 'withdraw grant-server-credentials')
      .argument('<org>', 'organization id')
      .action((id: string) =>
        withStorage(async ({ db }) => {
          const organization = await organizationOf(db, id);
          await setServerCredentials(db, organization.id, allowed);
          process.stdout.write(`Organization ${organization.id} ${allowed ? 'may now use' : 'no longer uses'} the server-wide code-host credentials.\n`);
        }),
      );
  }
}

/** `quire connections add|list|remove|rotate-key`: an organization's own code-host credentials. */
export function registerConnections(program: Command): void {
  const connections = topCommand(program, 'connections');
  connections
    .command('add')
    .requiredOption('--org <id>', 'organization id')
    .requiredOption('--kind <kind>', connectionKinds.join(', '))
    .option('--installation <id>', "installation id of the server's GitHub App (kind github-app)")
    .option('--json', 'print JSON')
    .description('connect a token (read from standard input) or a GitHub App installation')
    .action((flags: { org: string; kind: string; installation?: string; json?: boolean }) =>
      withStorage(async ({ db }, config) => {
        if (!connectionKinds.includes(flags.kind as ConnectionKind)) throw new CliError(`--kind is one of ${connectionKinds.join(', ')}; got "${flags.kind}".`);
        const kind = flags.kind as ConnectionKind;
        const organization = await organizationOf(db, flags.org);
        const installationId = kind === 'github-app' ? Number(flags.installation) : undefined;
        if (installationId !== undefined && !Number.isSafeInteger(installationId))
          throw new CliError("--installation is the GitHub App installation id, a number (it ends the URL of the installation's settings page).");
        const token = kind === 'github-app' ? undefined : await readToken();
        // The code-host clients load only for the verb that calls them.
        const { identifyConnection } = await import('../code-hosts/connect.ts');
        const account = await identifyConnection(config, { kind, token, installationId });
        const view = connectionView(await addConnection(db, config, organization.id, { kind, account, installationId, token }));
        print(flags, view, () => `Connected ${view.kind} ${view.account} to ${organization.id} as ${view.id}.`);
      }),
    );
  connections
    .command('list')
    .requiredOption('--org <id>', 'organization id')
    .option('--json', 'print JSON')
    .action((flags: { org: string; json?: boolean }) =>
      withStorage(async ({ db }) => {
        const views = (await listConnections(db, (await organizationOf(db, flags.org)).id)).map(connectionView);
        print(flags, views, () => table(views, ['id', 'kind', 'account', 'createdAt']));
      }),
    );
  connections
    .command('remove')
    .argument('<id>', 'connection id (con_…)')
    .requiredOption('--org <id>', 'organization id')
    .action((id: string, flags: { org: string }) =>
      withStorage(async ({ db }) => {
        const organization = await organizationOf(db, flags.org);
        if (!(await removeConnection(db, organization.id, id)))
          throw new CliError(`Organization ${organization.id} has no connection ${id}; "quire connections list --org ${organization.id}" shows them.`);
        process.stdout.write(`Removed connection ${id}; its token is deleted from the database.\n`);
      }),
    );
  connections
    .command('rotate-key')
    .description('re-encrypt every stored token, webhook secret and log drain secret under QUIRE_SECRET_KEY (old values open with QUIRE_SECRET_KEY_PREVIOUS)')
    .action(() =>
      withStorage(async ({ db }, config) => {
        const count = await reencryptConnections(db, config);
        const { reencryptWebhookSecrets } = await import('../jobs/webhooks/stored-secrets.ts');
        const webhooks = await reencryptWebhookSecrets(db, config);
        const { reencryptDrainSecrets } = await import('../analytics/drains/stored-secrets.ts');
        const drains = await reencryptDrainSecrets(db, config);
        process.stdout.write(
          `Re-encrypted ${count} token(s), ${webhooks} webhook secret(s) and ${drains} log drain secret(s) under QUIRE_SECRET_KEY; QUIRE_SECRET_KEY_PREVIOUS can now be removed.\n`,
        );
      }),
    );
}
