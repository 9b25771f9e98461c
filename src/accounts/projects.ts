import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import { parseModel } from '../config/model-name.ts';
import { newId } from '../lib/ids.ts';
import type { Database } from '../storage/schema.ts';
import { noteProjectChange } from './changes.ts';
import type { ProjectRow } from '../storage/tables/accounts.ts';

export interface ProjectSettings {
  name?: string;
  repository?: string | null;
  ref?: string | null;
  docsPath?: string | null;
  model?: string | null;
  trackerDomains?: string[];
  /** Whether static-asset requests from logs, drains and the proxy are dropped (default true). */
  skipAssets?: boolean;
  /** Changes to the asset rule's extensions, `+ext` (an asset too) or `-ext` (a page): see parseAssetExtensions. */
  assetExtensions?: string[];
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

/** Returns a sentence describing what is wrong with the settings, or null when they are fine. */
export function checkProjectSettings(settings: ProjectSettings): string | null {
  if (settings.name !== undefined && (settings.name.trim() === '' || settings.name.length > 200)) {
    return 'A project name must have 1 to 200 characters.';
  }
  if (settings.model) {
    const choice = parseModel(settings.model);
    if ('problem' in choice) return choice.problem;
  }
  if (settings.repository && !isRepositoryLocation(settings.repository)) {
    return `A repository is an https:// URL, a file:// URL or an absolute path; got "${settings.repository}".`;
  }
  for (const change of settings.assetExtensions ?? []) {
    if (!extensionChange.test(change)) return `"${change}" is not an extension change (+ext or -ext, such as +pdf or -svg).`;
  }
  for (const domain of settings.trackerDomains ?? []) {
    if (!/^(\*\.)?[a-z0-9-]+(\.[a-z0-9-]+)*(:\d+)?$/i.test(domain)) return `"${domain}" is not a host name (example: docs.example.com or *.example.com).`;
  }
  return null;
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
    tracker_domains: (settings.trackerDomains ?? []).join(','),
    analytics_secret: randomBytes(32).toString('base64url'),
    skip_assets: settings.skipAssets === false ? 0 : 1,
    asset_extensions: (settings.assetExtensions ?? []).join(' '),
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
  if (settings.trackerDomains !== undefined) changes.tracker_domains = settings.trackerDomains.join(',');
  if (settings.skipAssets !== undefined) changes.skip_assets = settings.skipAssets ? 1 : 0;
  if (settings.assetExtensions !== undefined) changes.asset_extensions = settings.assetExtensions.join(' ');
  await db.updateTable('projects').set(changes).where('id', '=', id).execute();
  noteProjectChange();
  return findProject(db, id);
}

export function findProject(db: Kysely<Database>, id: string): Promise<ProjectRow | undefined> {
  return db.selectFrom('projects').selectAll().where('id', '=', id).executeTakeFirst();
}

export function listProjects(db: Kysely<Database>, orgId: string): Promise<ProjectRow[]> {
  return db.selectFrom('projects').selectAll().where('org_id', '=', orgId).orderBy('created_at').orderBy('id').execute();
}

/** The public view of a project (no secrets). */
export function projectView(row: ProjectRow) {
  return {
    id: row.id,
    orgId: row.org_id,
    name: row.name,
    repository: row.repository,
    ref: row.ref,
    docsPath: row.docs_path,
    model: row.model,
    trackerDomains: row.tracker_domains ? row.tracker_domains.split(',') : [],
    skipAssets: row.skip_assets !== 0,
    assetExtensions: row.asset_extensions ? row.asset_extensions.split(' ') : [],
    createdAt: new Date(row.created_at).toISOString(),
    updatedAt: new Date(row.updated_at).toISOString(),
  };
}
