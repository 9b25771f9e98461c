import type { TtlCache } from '../lib/ttl-cache.ts';
import type { Storage } from '../storage/dialect.ts';
import type { ApiKeyRow, KeyKind, ProjectRow } from '../storage/tables/accounts.ts';
import { hasKeyForm, keyCanSeeProject, keyFormats, verifyKey } from './keys.ts';
import { findProject } from './projects.ts';

/** What the decision reads of a request: its `Authorization` and `Origin` headers, and the client address (for admin keys' allowed IPs). */
export interface DocsRequest {
  authorization: string | undefined;
  origin: string | undefined;
  /** The client address; undefined when unknown (a key limited to addresses is then refused). */
  from?: string;
}

export interface DocsAccessDependencies {
  storage: Pick<Storage, 'db' | 'deferDurability'>;
  /** The process's key and project caches (AppContext's `accounts`), when the caller has them. */
  keys?: TtlCache<ApiKeyRow>;
  projects?: TtlCache<ProjectRow>;
}

export type DocsAccess =
  | { ok: true; via: 'public' | 'assistant' | 'admin'; project: ProjectRow; keyId?: string }
  | { ok: false; status: 401 | 403 | 404; code: 'unauthorized' | 'forbidden' | 'not_found'; message: string; headers: Record<string, string> };

const challenge = { 'www-authenticate': 'Bearer realm="quire"' };

const unauthorized = (message: string): DocsAccess => ({ ok: false, status: 401, code: 'unauthorized', message, headers: challenge });

/** Never 403 for a project the key cannot see: whether it exists is not the caller's business. */
const notFound = (projectId: string): DocsAccess => ({
  ok: false,
  status: 404,
  code: 'not_found',
  message: `Project ${projectId} was not found, or this key cannot see it.`,
  headers: {},
});

/**
 * Who may read a project's docs (search, pages, the site surface, the search MCP server): anyone when
 * the project's docs are public; else an assistant key bound to the project, from one of its allowed
 * origins (or from a server, without `Origin`); else an admin key with `read` that sees the project.
 * A missing or failing key is 401 whether or not the project exists, so probing ids without a key
 * learns nothing; a valid key that cannot see the project is 404, as in the admin API.
 */
export function decideDocsAccess(dependencies: DocsAccessDependencies, request: DocsRequest, projectId: string): Promise<DocsAccess> {
  return decide(dependencies, request, projectId, false);
}

/** The same decision, but a key is always needed (the assistant spends the team's model budget): public docs do not suffice. */
export function requireDocsKey(dependencies: DocsAccessDependencies, request: DocsRequest, projectId: string): Promise<DocsAccess> {
  return decide(dependencies, request, projectId, true);
}

async function decide(dependencies: DocsAccessDependencies, request: DocsRequest, projectId: string, keyRequired: boolean): Promise<DocsAccess> {
  const { db } = dependencies.storage;
  const load = () => findProject(db, projectId);
  const project = dependencies.projects ? await dependencies.projects.get(projectId, load) : await load();
  if (project && project.docs_public === 1 && !keyRequired) return { ok: true, via: 'public', project };
  if (!request.authorization) {
    return unauthorized(
      `Send an assistant key (or an admin key with the read scope) in the Authorization header: "Authorization: Bearer ${keyFormats.assistant.prefix}…".`,
    );
  }
  const match = /^Bearer\s+(\S+)\s*$/i.exec(request.authorization);
  if (!match) return unauthorized('The Authorization header must be "Bearer " followed by an assistant key or an admin key.');
  const token = match[1];
  const kind: KeyKind = hasKeyForm(token, 'assistant') ? 'assistant' : 'admin';
  // An admin key needs the read scope, checked with the key so that a refused request leaves no trace of use.
  const check = await verifyKey(dependencies.storage, token, {
    kind,
    from: request.from,
    cache: dependencies.keys,
    scope: kind === 'admin' ? 'read' : undefined,
  });
  if (!check.ok)
    return check.code === 'forbidden' ? { ok: false, status: 403, code: 'forbidden', message: check.reason, headers: {} } : unauthorized(check.reason);
  const key = check.key;
  if (!project || !keyCanSeeProject(key, project)) return notFound(projectId);
  if (kind === 'admin') return { ok: true, via: 'admin', project, keyId: key.id };
  if (request.origin !== undefined && !originAllowed(key, request.origin)) {
    return {
      ok: false,
      status: 403,
      code: 'forbidden',
      message: `This assistant key may not be used from ${request.origin}: add the origin to the key's allowed origins, or use a key that allows it.`,
      headers: {},
    };
  }
  return { ok: true, via: 'assistant', project, keyId: key.id };
}

function originAllowed(key: ApiKeyRow, origin: string): boolean {
  if (key.allowed_origins === null) return true;
  let normalized: string;
  try {
    normalized = new URL(origin).origin;
  } catch {
    return false;
  }
  return key.allowed_origins.split(',').includes(normalized);
}
