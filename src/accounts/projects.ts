import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import { parseModel } from '../config/model-name.ts';
import { newId } from '../lib/ids.ts';
import { refNameProblem } from '../lib/ref-name.ts';
import type { Database } from '../storage/schema.ts';
import { noteProjectChange } from './changes.ts';
import { displayRepository } from '../lib/display-repository.ts';
import { defaultMcpName, mcpNameFormatProblem, withMcpName } from './mcp-name.ts';
import type { ProjectRow } from '../storage/tables/accounts.ts';

export interface ProjectSettings {
  name?: string;
  repository?: string | null;
  ref?: string | null;
  docsPath?: string | null;
  model?: string | null;
  /** The docs assistant's model, `provider:model`; null: the project's model. */
  assistantModel?: string | null;
  trackerDomains?: string[];
  /** Whether static-asset requests from logs, drains and the proxy are dropped (default true). */
  skipAssets?: boolean;
  /** Changes to the asset rule's extensions, `+ext` (an asset too) or `-ext` (a page): see parseAssetExtensions. */
  assetExtensions?: string[];
  /** The public address of the docs site, `https://…` or `http://…`; null (the default) means siteUrlOf's default. */
  siteUrl?: string | null;
  /** Whether the docs answer anonymous requests (default false: a key is needed). */
  docsPublic?: boolean;
  /** Names the MCP tools (default: the project name as a slug, unique in the organization); see mcp-name.ts. */
  mcpName?: string;
}

/** The docs site's address: the one set, else the project's site surface on Quire. */
export function siteUrlOf(project: Pick<ProjectRow, 'id' | 'site_url'>, publicUrl: string): string {
  return project.site_url ?? `${publicUrl.replace(/\/+$/, '')}/sites/${project.id}`;
}

/** An extension change as a project states it: `+ext` or `-ext`, the extension 1 to 8 letters or digits. */
const extensionChange = /^[+-][a-z0-9]{1,8}$/;

/**
 * Extension changes from what an operator typed (comma- or space-separated, `.pdf` or `PDF` as
 * `pdf`, `+` when no sign is given), or a sentence saying what is wrong. The last change of an
 * extension wins; `default` (or nothing) clears them.
 */
export function parseAssetExtensions(text: string): string[] | { problem: string } {
  const changes = new Map<string, string>();
  for (const word of text.split(/[\s,]+/).filter(Boolean)) {
    if (word.toLowerCase() === 'default') continue;
    const sign = word.startsWith('-') ? '-' : '+';
    const change = `${sign}${word.replace(/^[+-]/, '').replace(/^\./, '').toLowerCase()}`;
    if (!extensionChange.test(change)) {
      return { problem: `"${word}" is not an extension change: give +ext to treat an extension as an asset, -ext to count it as a page (such as +pdf,-svg).` };
    }
    changes.delete(change.slice(1));
    changes.set(change.slice(1), change);
  }
  return [...changes.values()];
}

/** C0 and C1 controls and DEL (`\p{Cc}`): no name or path a person types holds one. */
const controlCharacter = /\p{Cc}/u;

/** Returns a sentence describing what is wrong with the settings, or null when they are fine. */
export function checkProjectSettings(settings: ProjectSettings): string | null {
  if (settings.name !== undefined && (settings.name.trim() === '' || settings.name.length > 200)) {
    return 'A project name must have 1 to 200 characters.';
  }
  if (settings.name !== undefined && controlCharacter.test(settings.name)) {
    return 'A project name cannot hold control characters (a line break, a tab, a terminal escape).';
  }
  if (settings.ref) {
    const problem = refNameProblem(settings.ref);
    if (problem) return `The ref is not a valid git branch or tag name: it ${problem}.`;
  }
  if (settings.docsPath && (settings.docsPath.length > 500 || controlCharacter.test(settings.docsPath) || settings.docsPath.split(/[/\\]/).includes('..'))) {
    return `The docs folder is a folder inside the repository, such as docs or site/docs, without ".." or control characters; got ${JSON.stringify(settings.docsPath.slice(0, 100))}.`;
  }
  if (settings.model) {
    const choice = parseModel(settings.model);
    if ('problem' in choice) return choice.problem;
  }
  if (settings.assistantModel) {
    const choice = parseModel(settings.assistantModel);
    if ('problem' in choice) return `Assistant model: ${choice.problem}`;
  }
  if (settings.repository && !isRepositoryLocation(settings.repository)) {
    return `A repository is an https:// URL, a file:// URL or an absolute path; got "${settings.repository}".`;
  }
  // A token in the address would be stored in the clear and shown in every job of the project, its webhooks included.
  if (settings.repository && hasCredentials(settings.repository)) {
    return 'A repository address cannot hold a user name or password; give it without them, and connect the token instead (quire connections add, or the dashboard).';
  }
  for (const change of settings.assetExtensions ?? []) {
    if (!extensionChange.test(change)) return `"${change}" is not an extension change (+ext or -ext, such as +pdf or -svg).`;
  }
  if (settings.siteUrl && !isWebAddress(settings.siteUrl)) {
    return `A site URL is the https:// (or http://) address of the docs site, such as https://docs.example.com; got "${settings.siteUrl}".`;
  }
  if (settings.mcpName !== undefined) {
    const problem = mcpNameFormatProblem(settings.mcpName);
    if (problem) return problem;
  }
  for (const domain of settings.trackerDomains ?? []) {
    if (!/^(\*\.)?[a-z0-9-]+(\.[a-z0-9-]+)*(:\d+)?$/i.test(domain)) return `"${domain}" is not a host name (example: docs.example.com or *.example.com).`;
  }
  return null;
}

function isWebAddress(value: string): boolean {
  try {
    const url = new URL(value);
    return ['https:', 'http:'].includes(url.protocol) && url.hostname !== '' && !url.username && !url.password;
  } catch {
    return false;
  }
}

function hasCredentials(value: string): boolean {
  const url = URL.parse(value);
  return url !== null && (url.username !== '' || url.password !== '');
}

function isRepositoryLocation(value: string): boolean {
  if (value.startsWith('/')) return true;
  try {
    return ['https:', 'http:', 'file:'].includes(new URL(value).protocol);
  } catch {
    return false;
  }
}

export async function createProject(db: Kysely<Database>, orgId: string, settings: ProjectSettings & { name: string }): Promise<ProjectRow> {
  const now = Date.now();
  const row: ProjectRow = {
    id: newId('prj'),
    org_id: orgId,
    name: settings.name,
    repository: settings.repository ?? null,
    ref: settings.ref ?? null,
    docs_path: settings.docsPath ?? null,
    model: settings.model ?? null,
    assistant_model: settings.assistantModel ?? null,
    tracker_domains: (settings.trackerDomains ?? []).join(','),
    analytics_secret: randomBytes(32).toString('base64url'),
    skip_assets: settings.skipAssets === false ? 0 : 1,
    asset_extensions: (settings.assetExtensions ?? []).join(' '),
    site_url: settings.siteUrl ?? null,
    docs_public: settings.docsPublic ? 1 : 0,
    mcp_name: settings.mcpName ?? (await defaultMcpName(db, orgId, settings.name)),
    created_at: now,
    updated_at: now,
  };
  await db.insertInto('projects').values(row).execute();
  return row;
}

export async function updateProject(db: Kysely<Database>, id: string, settings: ProjectSettings): Promise<ProjectRow | undefined> {
  const changes: Partial<ProjectRow> = { updated_at: Date.now() };
  if (settings.name !== undefined) changes.name = settings.name;
  if (settings.repository !== undefined) changes.repository = settings.repository;
  if (settings.ref !== undefined) changes.ref = settings.ref;
  if (settings.docsPath !== undefined) changes.docs_path = settings.docsPath;
  if (settings.model !== undefined) changes.model = settings.model;
  if (settings.assistantModel !== undefined) changes.assistant_model = settings.assistantModel;
  if (settings.trackerDomains !== undefined) changes.tracker_domains = settings.trackerDomains.join(',');
  if (settings.skipAssets !== undefined) changes.skip_assets = settings.skipAssets ? 1 : 0;
  if (settings.assetExtensions !== undefined) changes.asset_extensions = settings.assetExtensions.join(' ');
  if (settings.siteUrl !== undefined) changes.site_url = settings.siteUrl;
  if (settings.docsPublic !== undefined) changes.docs_public = settings.docsPublic ? 1 : 0;
  if (settings.mcpName !== undefined) changes.mcp_name = settings.mcpName;
  await db.updateTable('projects').set(changes).where('id', '=', id).execute();
  noteProjectChange();
  return findProject(db, id);
}

/** Projects are read here, so a project made before MCP names existed gets its default name when first read. */
export async function findProject(db: Kysely<Database>, id: string): Promise<ProjectRow | undefined> {
  const row = await db.selectFrom('projects').selectAll().where('id', '=', id).executeTakeFirst();
  return row && withMcpName(db, row);
}

export async function listProjects(db: Kysely<Database>, orgId: string): Promise<ProjectRow[]> {
  const rows = await db.selectFrom('projects').selectAll().where('org_id', '=', orgId).orderBy('created_at').orderBy('id').execute();
  // One at a time: names are given in creation order, so the oldest project keeps the plain slug.
  const named: ProjectRow[] = [];
  for (const row of rows) named.push(await withMcpName(db, row));
  return named;
}

/** The public view of a project (no secrets). */
export function projectView(row: ProjectRow) {
  return {
    id: row.id,
    orgId: row.org_id,
    name: row.name,
    repository: row.repository === null ? null : displayRepository(row.repository),
    ref: row.ref,
    docsPath: row.docs_path,
    model: row.model,
    assistantModel: row.assistant_model,
    trackerDomains: row.tracker_domains ? row.tracker_domains.split(',') : [],
    skipAssets: row.skip_assets !== 0,
    assetExtensions: row.asset_extensions ? row.asset_extensions.split(' ') : [],
    siteUrl: row.site_url,
    docsPublic: row.docs_public !== 0,
    mcpName: row.mcp_name,
    createdAt: new Date(row.created_at).toISOString(),
    updatedAt: new Date(row.updated_at).toISOString(),
  };
}
