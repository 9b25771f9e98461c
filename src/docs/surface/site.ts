import { createHmac } from 'node:crypto';
import { siteUrlOf } from '../../accounts/projects.ts';
import { publicUrl, type Config } from '../../config/config.ts';
import type { ProjectRow } from '../../storage/tables/accounts.ts';
import type { SiteInfo } from './site-files.ts';

const withoutTrailingSlash = (url: string) => url.replace(/\/+$/, '');

/**
 * The site as its index files describe it. The index keeps no site name or description of its own
 * yet, so both come from the project's name.
 */
export function siteOf(project: ProjectRow, config: Config): SiteInfo {
  return {
    projectId: project.id,
    name: project.name,
    description: `The ${project.name} documentation.`,
    siteUrl: withoutTrailingSlash(siteUrlOf(project, publicUrl(config))),
  };
}

/** The project's site surface on Quire: `{QUIRE_PUBLIC_URL}/sites/{projectId}`. */
export const quireSurfaceBase = (project: ProjectRow, config: Config) => `${withoutTrailingSlash(publicUrl(config))}/sites/${project.id}`;

/**
 * The key that signs the project's MCP session ids (docs/mcp/session.ts): derived from the project's
 * own server-side secret and its id, so every process derives the same one and no project's ids are
 * valid for another.
 */
export const mcpSessionKey = (project: ProjectRow) => createHmac('sha256', project.analytics_secret).update(`docs-mcp-session:${project.id}`).digest();
