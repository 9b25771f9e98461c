import type { Command } from 'commander';
import { topCommand } from './commands.ts';
import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.ts';
import { publicUrl, type Config } from '../config/config.ts';
import { createOrganization, listOrganizations, resolveOrganization } from '../accounts/organizations.ts';
import { checkProjectSettings, findProject, listProjects, parseAssetExtensions, projectView, siteUrlOf, type ProjectSettings } from '../accounts/projects.ts';
import type { SaveResult } from '../projects/settings.ts';
import type { Storage } from '../storage/dialect.ts';
import { databaseName, withStorage } from './database.ts';
import { organizationView, registerGrants } from './tenancy.ts';
import { CliError, print, table } from './output.ts';

/** Saving a project checks its repository through the code-host clients: loaded by the verbs that save, not by every listing. */
const projectSettingsModule = () => import('../projects/settings.ts');
const docsRequestsModule = () => import('../server/docs-requests.ts');

interface ProjectFlags {
  json?: boolean;
  org?: string;
  name?: string;
  repository?: string;
  ref?: string;
  docsPath?: string;
  model?: string;
  assistantModel?: string;
  trackerDomains?: string;
  skipAssets?: string;
  assetExtensions?: string;
  siteUrl?: string;
  docsPublic?: string;
  mcpName?: string;
}

/** `--skip-assets on|off`, `--docs-public on|off` (also true/false, yes/no). */
function onOff(flag: string, value: string | undefined): boolean | undefined {
  if (value === undefined) return undefined;
  const word = value.trim().toLowerCase();
  if (['on', 'true', 'yes', '1'].includes(word)) return true;
  if (['off', 'false', 'no', '0'].includes(word)) return false;
  throw new CliError(`${flag} takes on or off; got "${value}".`);
}

/**
 * The saved project, or the refusal as the flag's problem. A project created with a repository, or
 * saved with another repository or ref, has its docs build requested here: this process has no
 * builder, nor the server's events, so the request goes through the database to the server's builder.
 */
async function saved(storage: Storage, result: SaveResult) {
  if (!result.ok) throw new CliError(result.problem.message);
  if (result.sourceChanged) await (await docsRequestsModule()).requestDocsBuild(storage, result.project.id);
  return { view: projectView(result.project), docsBuildRequested: result.sourceChanged && result.project.repository !== null };
}

/** What happens to the docs build the save requested, and how to follow it. */
function docsBuildNote(projectId: string): string {
  return (
    `\nDocs index: a build is queued. A running "quire serve" (or "quire worker") starts it within seconds; ` +
    `if none runs, it starts when one does ("npm start"). "quire docs status --project ${projectId}" follows it.`
  );
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
    assistantModel: flags.assistantModel === '' ? null : flags.assistantModel,
    trackerDomains:
      flags.trackerDomains === undefined
        ? undefined
        : flags.trackerDomains
            .split(',')
            .map((domain) => domain.trim())
            .filter(Boolean),
    skipAssets: onOff('--skip-assets', flags.skipAssets),
    assetExtensions: assetExtensions(flags.assetExtensions),
    siteUrl: flags.siteUrl === '' ? null : flags.siteUrl,
    docsPublic: onOff('--docs-public', flags.docsPublic),
    mcpName: flags.mcpName,
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
    .option('--assistant-model <provider:model>', 'model the docs assistant answers with ("" clears it: the project\'s model)')
    .option('--tracker-domains <hosts>', 'comma-separated host names the browser tracker may report from')
    .option(
      '--skip-assets <on|off>',
      'on (default): requests for images, scripts, styles, fonts from logs, drains and the proxy are not views; off counts them',
    )
    .option(
      '--asset-extensions <changes>',
      'changes to the asset extensions, comma-separated: +ext also an asset (+pdf), -ext a page after all (-svg); "default" clears them',
    )
    .option('--site-url <url>', 'public address of the docs site, used in citations and links ("" clears it: the project\'s site surface on Quire)')
    .option('--docs-public <on|off>', 'on: the docs (site surface, search, MCP server) answer anonymous requests; off (default): they need a key')
    .option('--mcp-name <name>', 'names the MCP tools: [a-z0-9_]{1,40}, unique in the organization (default: the project name as a slug)');
}

/** One line per setting, as `projects show` and `projects update` print a project. */
function describeProject(view: ReturnType<typeof projectView>, config: Config): string {
  return [
    `${view.id} (${view.name}) in ${view.orgId}`,
    `Repository: ${view.repository ?? '-'}, ref ${view.ref ?? '-'}, docs path ${view.docsPath ?? '-'}`,
    `Model: ${view.model ?? '(QUIRE_MODEL)'}`,
    `Assistant model: ${view.assistantModel ?? '(the project model)'}`,
    `Static assets: ${view.skipAssets ? 'skipped' : 'counted as views'}${view.assetExtensions.length > 0 ? ` (extensions ${view.assetExtensions.join(' ')})` : ''}`,
    `Site URL: ${view.siteUrl ?? `${siteUrlOf({ id: view.id, site_url: null }, publicUrl(config))} (the site surface on Quire)`}`,
    `Docs public: ${view.docsPublic ? 'on' : 'off'}`,
    `MCP name: ${view.mcpName}`,
  ].join('\n');
}

/** A `list` verb printing an organization's rows as a table, or as JSON with --json. */
export function organizationListing(
  parent: Command,
  load: (db: Kysely<Database>, orgId: string) => Promise<Record<string, unknown>[]>,
  columns: string[],
): void {
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
  const orgs = topCommand(program, 'orgs');
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
        // As the other listings: no organization most likely means another database than the one meant.
        print(flags, views, () =>
          views.length === 0
            ? `(none in ${databaseName(config)})`
            : table(views, ['id', 'name', 'createdAt', 'trusted', 'serverCredentials', 'localRepositories']),
        );
      }),
    );
  registerGrants(orgs);

  const projects = topCommand(program, 'projects');
  projectOptions(
    projects
      .command('create')
      .requiredOption('--name <name>', 'project name')
      .option('--org <id>', 'organization (default: the first one)')
      .option('--json', 'print JSON'),
  ).action((flags: ProjectFlags & { name: string }) =>
    withStorage(async (storage, config) => {
      const { db } = storage;
      const settings = projectSettings(flags);
      const organization = await resolveOrganization(db, flags.org);
      const { createCheckedProject } = await projectSettingsModule();
      const { view, docsBuildRequested } = await saved(storage, await createCheckedProject({ db, config }, organization.id, { ...settings, name: flags.name }));
      print(flags, view, () => `Created project ${view.id} (${view.name}) in ${organization.id}.${docsBuildRequested ? docsBuildNote(view.id) : ''}`);
    }),
  );
  organizationListing(projects, (db, orgId) => listProjects(db, orgId).then((rows) => rows.map(projectView)), [
    'id',
    'name',
    'repository',
    'ref',
    'model',
    'siteUrl',
    'docsPublic',
    'mcpName',
  ]);
  projects
    .command('show')
    .argument('<id>', 'project id')
    .option('--json', 'print JSON')
    .action((id: string, flags: { json?: boolean }) =>
      withStorage(async ({ db }, config) => {
        const project = await findProject(db, id);
        if (!project) throw new CliError(`No project has the id ${id}; "quire projects list" shows them.`);
        const view = projectView(project);
        print(flags, view, () => describeProject(view, config));
      }),
    );
  projectOptions(projects.command('update').argument('<id>', 'project id').option('--name <name>', 'project name').option('--json', 'print JSON')).action(
    (id: string, flags: ProjectFlags) =>
      withStorage(async (storage, config) => {
        const { db } = storage;
        const settings = projectSettings(flags);
        const project = await findProject(db, id);
        if (!project) throw new CliError(`No project has the id ${id}; "quire projects list" shows them.`);
        const { saveProjectSettings } = await projectSettingsModule();
        const { view, docsBuildRequested } = await saved(storage, await saveProjectSettings({ db, config }, project, settings));
        print(flags, view, () => `Updated project ${describeProject(view, config)}${docsBuildRequested ? docsBuildNote(view.id) : ''}`);
      }),
  );
}
