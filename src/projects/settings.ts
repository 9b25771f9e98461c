import type { EventEmitter } from 'node:events';
import type { Kysely } from 'kysely';
import { mcpNameProblem } from '../accounts/mcp-name.ts';
import { checkProjectSettings, createProject, updateProject, type ProjectSettings } from '../accounts/projects.ts';
import { repositoryProblem } from '../code-hosts/access.ts';
import type { Config } from '../config/config.ts';
import type { QuireEvents } from '../http/context.ts';
import type { Database } from '../storage/schema.ts';
import type { ProjectRow } from '../storage/tables/accounts.ts';

declare module '../http/context.ts' {
  interface QuireEvents {
    /** A project was created with, or saved with another, repository or ref: its docs are to be built again. */
    'project-source-changed': [{ projectId: string }];
  }
}

export interface SettingsDependencies {
  db: Kysely<Database>;
  config: Config;
  /**
   * The process's events. The CLI, a process of its own, has none to tell: it requests the docs build
   * itself when the result says the source changed.
   */
  events?: EventEmitter<QuireEvents>;
}

/** What is wrong with one setting, so a form can show it beside its field and the API and CLI can say it. */
export interface SettingsProblem {
  field: keyof ProjectSettings;
  message: string;
}

/** Checked one at a time, in the order forms show them, so the first problem named is the first field. */
const checkedFields = ['name', 'repository', 'ref', 'docsPath', 'model', 'assistantModel', 'trackerDomains', 'assetExtensions', 'siteUrl', 'mcpName'] as const;

/** The saved values of the fields whose rules came later than some saved projects (forms send every field back). */
const savedValue = {
  name: (project: ProjectRow) => project.name,
  ref: (project: ProjectRow) => project.ref,
  docsPath: (project: ProjectRow) => project.docs_path,
};

/**
 * The rules every way of saving a project follows (CLI, dashboard, API). `project` is the saved one
 * (undefined when creating): a repository or MCP name it already has is not checked again, so an edit
 * of the name does not fail on a repository whose access is checked anyway when a job runs; nor is a
 * name, ref or docs folder it already has.
 */
export async function projectSettingsProblem(
  dependencies: SettingsDependencies,
  orgId: string,
  project: ProjectRow | undefined,
  settings: ProjectSettings,
): Promise<SettingsProblem | null> {
  for (const field of checkedFields) {
    // A name, ref or docs folder saved before these were checked is not held against an edit of another field.
    if (project !== undefined && field in savedValue && settings[field] === savedValue[field as keyof typeof savedValue](project)) continue;
    const message = checkProjectSettings({ [field]: settings[field] });
    if (message) return { field, message };
  }
  if (settings.mcpName !== undefined && settings.mcpName !== project?.mcp_name) {
    const message = await mcpNameProblem(dependencies.db, orgId, project?.id, settings.mcpName);
    if (message) return { field: 'mcpName', message };
  }
  if (settings.repository !== undefined && settings.repository !== project?.repository) {
    const message = await repositoryProblem(dependencies.db, dependencies.config, orgId, settings.repository);
    if (message) return { field: 'repository', message };
  }
  return null;
}

export type SaveResult =
  | {
      ok: true;
      project: ProjectRow;
      /** Created with a repository, or saved with another repository or ref: its docs are to be built again. */
      sourceChanged: boolean;
    }
  | { ok: false; problem: SettingsProblem };

/** Creates a project when its settings pass projectSettingsProblem. */
export async function createCheckedProject(
  dependencies: SettingsDependencies,
  orgId: string,
  settings: ProjectSettings & { name: string },
): Promise<SaveResult> {
  const problem = await projectSettingsProblem(dependencies, orgId, undefined, settings);
  if (problem) return { ok: false, problem };
  const project = await createProject(dependencies.db, orgId, settings);
  const sourceChanged = project.repository !== null;
  if (sourceChanged) dependencies.events?.emit('project-source-changed', { projectId: project.id });
  return { ok: true, project, sourceChanged };
}

/** The one place a project's settings are saved: checks them, saves them, and tells the process when its docs' source moved. */
export async function saveProjectSettings(dependencies: SettingsDependencies, project: ProjectRow, settings: ProjectSettings): Promise<SaveResult> {
  const problem = await projectSettingsProblem(dependencies, project.org_id, project, settings);
  if (problem) return { ok: false, problem };
  const saved = (await updateProject(dependencies.db, project.id, settings))!;
  const sourceChanged = saved.repository !== project.repository || saved.ref !== project.ref;
  if (sourceChanged) dependencies.events?.emit('project-source-changed', { projectId: project.id });
  return { ok: true, project: saved, sourceChanged };
}
