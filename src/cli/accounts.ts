import type { Command } from 'commander';
import type { Kysely } from 'kysely';
import { AddressRangeError, parseAddressRanges } from '../lib/ip-ranges.ts';
import type { Database } from '../storage/schema.ts';
import { createKey, findKey, keyView, listKeys, parseScopes, revokeKey } from '../accounts/keys.ts';
import { createOrganization, listOrganizations, resolveOrganization } from '../accounts/organizations.ts';
import {
  checkProjectSettings,
  createProject,
  findProject,
  listProjects,
  parseAssetExtensions,
  projectView,
  updateProject,
  type ProjectSettings,
} from '../accounts/projects.ts';
import { repositoryProblem } from '../code-hosts/access.ts';
import { databaseName, withStorage } from './database.ts';
import { organizationView, registerGrants } from './tenancy.ts';
import { CliError, print, table } from './output.ts';

interface ProjectFlags {
  json?: boolean;
  org?: string;
  name?: string;
  repository?: string;
  ref?: string;
  docsPath?: string;
  model?: string;
  trackerDomains?: string;
  skipAssets?: string;
  assetExtensions?: string;
}

/** `--skip-assets on|off` (also true/false, yes/no). */
function onOff(value: string | undefined): boolean | undefined {
  if (value === undefined) return undefined;
  const word = value.trim().toLowerCase();
  if (['on', 'true', 'yes', '1'].includes(word)) return true;
  if (['off', 'false', 'no', '0'].includes(word)) return false;
  throw new CliError(`--skip-assets takes on or off; got "${value}".`);
}

/** `--asset-extensions +pdf,-svg` (`default` or "" clears the changes). */
function assetExtensions(value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  const changes = parseAssetExtensions(value);
  if ('problem' in changes) throw new CliError(`--asset-extensions: ${changes.problem}`);
  return changes;
}

function projectSettings(flags: ProjectFlags): ProjectSettings {
  const settings: ProjectSettings = {
    name: flags.name,
    repository: flags.repository === '' ? null : flags.repository,
    ref: flags.ref === '' ? null : flags.ref,
    docsPath: flags.docsPath === '' ? null : flags.docsPath,
    model: flags.model === '' ? null : flags.model,
    trackerDomains:
      flags.trackerDomains === undefined
        ? undefined
        : flags.trackerDomains
            .split(',')
            .map((domain) => domain.trim())
            .filter(Boolean),
    skipAssets: onOff(flags.skipAssets),
    assetExtensions: assetExtensions(flags.assetExtensions),
  };
  const problem = checkProjectSettings(settings);
  if (problem) throw new CliError(problem);
  return settings;
}

function projectOptions(command: Command): Command {
  return command
    .option('--repository <url>', 'documentation repository: https URL, file:// URL or absolute path ("" clears it)')
    .option('--ref <ref>', 'branch jobs start from (default: the repository default branch)')
    .option('--docs-path <path>', 'folder of the docs inside the repository')
    .option('--model <provider:model>', 'model of this project, overriding QUIRE_MODEL')
    .option('--tracker-domains <hosts>', 'comma-separated host names the browser tracker may report from')
    .option(
      '--skip-assets <on|off>',
      'on (default): requests for images, scripts, styles, fonts from logs, drains and the proxy are not views; off counts them',
    )
    .option(
      '--asset-extensions <changes>',
      'changes to the asset extensions, comma-separated: +ext also an asset (+pdf), -ext a page after all (-svg); "default" clears them',
    );
}

/** A `list` verb printing an organization's rows as a table, or as JSON with --json. */
function organizationListing(parent: Command, load: (db: Kysely<Database>, orgId: string) => Promise<Record<string, unknown>[]>, columns: string[]): void {
  parent
    .command('list')
    .option('--org <id>', 'organization (default: the first one)')
    .option('--json', 'print JSON')
    .action((flags: { org?: string; json?: boolean }) =>
      withStorage(async ({ db }, config) => {
        const organization = await resolveOrganization(db, flags.org);
        const views = await load(db, organization.id);
        // An empty listing often means another database than the one meant: say which one this is.
        print(flags, views, () => (views.length === 0 ? `(none in ${organization.id}, ${databaseName(config)})` : table(views, columns)));
      }),
    );
}

export function registerAccounts(program: Command): void {
  const orgs = program.command('orgs').description('Organizations, which own projects and keys, and what the operator lets them reach');
  orgs
    .command('create')
    .requiredOption('--name <name>', 'organization name')
    .option('--json', 'print JSON')
    .action((flags: { name: string; json?: boolean }) =>
      withStorage(async ({ db }) => {
        const organization = await createOrganization(db, flags.name);
        const view = { id: organization.id, name: organization.name, createdAt: new Date(organization.created_at).toISOString() };
        print(flags, view, () => `Created organization ${view.id} (${view.name}).`);
      }),
    );
  orgs
    .command('list')
    .option('--json', 'print JSON')
    .action((flags: { json?: boolean }) =>
      withStorage(async ({ db }, config) => {
        const views = await Promise.all((await listOrganizations(db)).map((row) => organizationView(db, config, row)));
        print(flags, views, () => table(views, ['id', 'name', 'createdAt', 'trusted', 'serverCredentials', 'localRepositories']));
      }),
    );
  registerGrants(orgs);

  const projects = program.command('projects').description('Projects: a documentation repository and its analytics');
  projectOptions(
    projects
      .command('create')
      .requiredOption('--name <name>', 'project name')
      .option('--org <id>', 'organization (default: the first one)')
      .option('--json', 'print JSON'),
  ).action((flags: ProjectFlags & { name: string }) =>
    withStorage(async ({ db }, config) => {
      const settings = projectSettings(flags);
      const organization = await resolveOrganization(db, flags.org);
      const problem = await repositoryProblem(db, config, organization.id, settings.repository);
      if (problem) throw new CliError(problem);
      const view = projectView(await createProject(db, organization.id, { ...settings, name: flags.name }));
      print(flags, view, () => `Created project ${view.id} (${view.name}) in ${organization.id}.`);
    }),
  );
  organizationListing(projects, (db, orgId) => listProjects(db, orgId).then((rows) => rows.map(projectView)), ['id', 'name', 'repository', 'ref', 'model']);
  projectOptions(projects.command('update').argument('<id>', 'project id').option('--name <name>', 'project name').option('--json', 'print JSON')).action(
    (id: string, flags: ProjectFlags) =>
      withStorage(async ({ db }, config) => {
        const settings = projectSettings(flags);
        const project = await findProject(db, id);
        if (!project) throw new CliError(`No project has the id ${id}; "quire projects list" shows them.`);
        const problem = await repositoryProblem(db, config, project.org_id, settings.repository);
        if (problem) throw new CliError(problem);
        const view = projectView((await updateProject(db, id, settings))!);
        print(
          flags,
          view,
          () =>
            `Updated project ${view.id}: repository ${view.repository ?? '-'}, ref ${view.ref ?? '-'}, model ${view.model ?? '(QUIRE_MODEL)'}, static assets ${view.skipAssets ? 'skipped' : 'counted as views'}${view.assetExtensions.length > 0 ? ` (extensions ${view.assetExtensions.join(' ')})` : ''}.`,
        );
      }),
  );

  const keys = program.command('keys').description('Admin API keys');
  keys
    .command('create')
    .option('--org <id>', 'organization (default: the first one)')
    .option('--name <name>', 'a name to tell keys apart', 'Admin key')
    .option('--project <ids>', 'limit the key to these comma-separated project ids')
    .option('--scopes <scopes>', 'comma-separated: read, write, ingest', 'read,write')
    .option('--expires <iso>', 'expiry time, ISO 8601 (default: never)')
    .option(
      '--allow-ips <ranges>',
      'limit the key to these comma-separated IP addresses and CIDR ranges, e.g. 203.0.113.0/24,2001:db8::/32 (default: any address)',
    )
    .option('--json', 'print JSON')
    .action((flags: { org?: string; name: string; project?: string; scopes: string; expires?: string; allowIps?: string; json?: boolean }) =>
      withStorage(async ({ db }) => {
        const organization = await resolveOrganization(db, flags.org);
        let scopes;
        let allowedIps;
        try {
          scopes = parseScopes(flags.scopes);
          allowedIps = flags.allowIps === undefined ? undefined : parseAddressRanges(flags.allowIps);
        } catch (error) {
          throw new CliError(`${error instanceof AddressRangeError ? '--allow-ips: ' : ''}${(error as Error).message}`);
        }
        const expiresAt = flags.expires === undefined ? undefined : new Date(flags.expires);
        if (expiresAt && Number.isNaN(expiresAt.getTime()))
          throw new CliError(`--expires must be an ISO 8601 time such as 2027-01-01T00:00:00Z; got "${flags.expires}".`);
        if (expiresAt && expiresAt.getTime() <= Date.now())
          throw new CliError(
            `--expires ${flags.expires} is in the past, so the key would never work; give a later time, or leave it out for a key that does not expire.`,
          );
        const projectIds = flags.project
          ?.split(',')
          .map((id) => id.trim())
          .filter(Boolean);
        for (const projectId of projectIds ?? []) {
          const project = await findProject(db, projectId);
          if (!project || project.org_id !== organization.id) throw new CliError(`Organization ${organization.id} has no project ${projectId}.`);
        }
        const { key, row } = await createKey(db, organization.id, { name: flags.name, scopes, projectIds, allowedIps, expiresAt });
        const view = { ...keyView(row), key };
        print(flags, view, () => `Created key ${row.id} (${row.scopes}). Store it now, it is shown only once:\n${key}`);
      }),
    );
  organizationListing(keys, (db, orgId) => listKeys(db, orgId).then((rows) => rows.map(keyView)), [
    'id',
    'name',
    'prefix',
    'scopes',
    'projectIds',
    'allowedIps',
    'lastUsedAt',
    'expiresAt',
    'revokedAt',
  ]);
  keys
    .command('revoke')
    .argument('<id>', 'key id (key_…)')
    .option('--org <id>', 'refuse unless the key belongs to this organization')
    .option('--json', 'print JSON')
    .action((id: string, flags: { org?: string; json?: boolean }) =>
      withStorage(async ({ db }) => {
        // Key ids are unique across organizations, so the id alone names the key.
        const key = await findKey(db, id);
        if (!key) throw new CliError(`No key has the id ${id}; "quire keys list --org <id>" shows an organization's keys.`);
        if (flags.org !== undefined) {
          const organization = await resolveOrganization(db, flags.org);
          if (organization.id !== key.org_id)
            throw new CliError(`Key ${id} belongs to organization ${key.org_id}, not ${organization.id}; nothing was revoked.`);
        }
        await revokeKey(db, key.org_id, id);
        print(flags, { id, revoked: true }, () => `Revoked key ${id}; requests with it now get 401.`);
      }),
    );
}
