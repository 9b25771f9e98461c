import type { FastifyReply, FastifyRequest } from 'fastify';
import { clientAddressResolver } from '../http/client-address.ts';
import type { AppContext } from '../http/context.ts';
import { ApiError, notFound } from '../http/errors.ts';
import { TtlCache } from '../lib/ttl-cache.ts';
import type { ApiKeyRow, ProjectRow } from '../storage/tables/accounts.ts';
import { keyChanges, projectChanges } from './changes.ts';
import { keyCanSeeProject, verifyKey, type Scope } from './keys.ts';
import { findProject } from './projects.ts';

declare module 'fastify' {
  interface FastifyRequest {
    apiKey: ApiKeyRow | null;
  }
}

declare module '../http/context.ts' {
  interface AppContext {
    /**
     * API keys and projects that requests look up, reused for QUIRE_ACCOUNT_CACHE_MS. Revoking a key
     * or updating a project in this process empties them at once (see changes.ts).
     */
    accounts: AccountCaches;
  }
}

export interface AccountCaches {
  /** Key rows by key hash. */
  keys: TtlCache<ApiKeyRow>;
  /** Project rows by project id. */
  projects: TtlCache<ProjectRow>;
}

export function createAccountCaches(ttlMs: number): AccountCaches {
  return { keys: new TtlCache(ttlMs, { generation: keyChanges }), projects: new TtlCache(ttlMs, { generation: projectChanges }) };
}

function unauthorized(message: string): ApiError {
  return new ApiError('unauthorized', message, { headers: { 'www-authenticate': 'Bearer realm="quire"' } });
}

/** An `onRequest` hook: the request must carry a valid admin API key with `scope`. */
export function requireKey(context: AppContext, scope: Scope) {
  const clientAddress = clientAddressResolver(context.config.trustedProxies);
  return async (request: FastifyRequest, _reply: FastifyReply) => {
    const header = request.headers.authorization;
    if (!header) throw unauthorized('Send an admin API key in the Authorization header: "Authorization: Bearer quire_…".');
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!match) throw unauthorized('The Authorization header must be "Bearer " followed by an admin API key.');
    const check = await verifyKey(context.storage, match[1], { cache: context.accounts.keys, from: clientAddress(request), scope });
    if (!check.ok) throw check.code === 'forbidden' ? new ApiError('forbidden', check.reason) : unauthorized(check.reason);
    request.apiKey = check.key;
  };
}

/** The project the path names, when the request's key may see it; 404 otherwise (never 403). */
export async function visibleProject(context: AppContext, request: FastifyRequest, projectId: string): Promise<ProjectRow> {
  const key = request.apiKey;
  if (!key) throw new Error('visibleProject called on a route without requireKey');
  const project = await context.accounts.projects.get(projectId, () => findProject(context.storage.db, projectId));
  if (!project || !keyCanSeeProject(key, project)) throw notFound(`Project ${projectId}`);
  return project;
}
