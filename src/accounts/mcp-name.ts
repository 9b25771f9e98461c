import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.ts';
import type { ProjectRow } from '../storage/tables/accounts.ts';

/** An MCP name: it ends tool names such as `search_{name}`, so it keeps to what every MCP client accepts. */
export const mcpNamePattern = /^[a-z0-9_]{1,40}$/;
const maximumLength = 40;

/** The project name as a slug: lower case, every run of other characters one `_`, `docs` when nothing is left. */
export function mcpSlug(name: string): string {
  const slug = name
    .normalize('NFKD')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, maximumLength)
    .replace(/_+$/, '');
  return slug === '' ? 'docs' : slug;
}

/** `base`, then `base_2`, `base_3`…, each cut so the suffix fits in the 40 characters. */
function candidate(base: string, attempt: number): string {
  if (attempt === 1) return base;
  const suffix = `_${attempt}`;
  return base.slice(0, maximumLength - suffix.length) + suffix;
}

/** A sentence saying why `name` cannot be the MCP name, or null. */
export function mcpNameFormatProblem(name: string): string | null {
  return mcpNamePattern.test(name) ? null : `An MCP name has 1 to 40 lower-case letters, digits and underscores (such as acme_docs); got "${name}".`;
}

/** The project of the organization that already has `name`, other than `projectId`. */
async function holder(db: Kysely<Database>, orgId: string, name: string, projectId: string | undefined): Promise<string | undefined> {
  const row = await db.selectFrom('projects').select('id').where('org_id', '=', orgId).where('mcp_name', '=', name).executeTakeFirst();
  return row && row.id !== projectId ? row.id : undefined;
}

/** A sentence saying why the project cannot take `name` (its form, or another project of the organization has it), or null. */
export async function mcpNameProblem(db: Kysely<Database>, orgId: string, projectId: string | undefined, name: string): Promise<string | null> {
  const format = mcpNameFormatProblem(name);
  if (format) return format;
  const taken = await holder(db, orgId, name, projectId);
  if (!taken) return null;
  let free = 2;
  while (await holder(db, orgId, candidate(name, free), projectId)) free++;
  return `The MCP name "${name}" is taken by project ${taken} in this organization; give another, such as ${candidate(name, free)}.`;
}

/** The first free default name for `projectName` in the organization. */
export async function defaultMcpName(db: Kysely<Database>, orgId: string, projectName: string): Promise<string> {
  const base = mcpSlug(projectName);
  let attempt = 1;
  while (await holder(db, orgId, candidate(base, attempt), undefined)) attempt++;
  return candidate(base, attempt);
}

/**
 * The project with its MCP name, giving it the default when it has none yet (projects made before
 * names existed). Two processes naming two projects at once may pick the same name: the unique index
 * refuses the second, which then picks again.
 */
export async function withMcpName(db: Kysely<Database>, project: ProjectRow): Promise<ProjectRow> {
  if (project.mcp_name !== null) return project;
  for (let round = 0; round < 5; round++) {
    const name = await defaultMcpName(db, project.org_id, project.name);
    try {
      await db.updateTable('projects').set({ mcp_name: name }).where('id', '=', project.id).where('mcp_name', 'is', null).execute();
    } catch {
      continue;
    }
    const row = await db.selectFrom('projects').select('mcp_name').where('id', '=', project.id).executeTakeFirst();
    return { ...project, mcp_name: row?.mcp_name ?? name };
  }
  throw new Error(`Could not give project ${project.id} an MCP name: every name tried was taken meanwhile.`);
}
