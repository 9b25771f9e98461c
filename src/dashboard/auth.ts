import type { FastifyReply, FastifyRequest } from 'fastify';
import { canManage, findPerson } from '../accounts/people/people.ts';
import { findProject } from '../accounts/projects.ts';
import type { ProjectRow } from '../storage/tables/accounts.ts';
import type { Config } from '../config/config.ts';
import type { AppContext } from '../http/context.ts';
import { ApiError } from '../http/errors.ts';
import type { Viewer } from './layout.ts';
import { csrfToken, findSession, sameToken } from '../accounts/people/sessions.ts';

declare module 'fastify' {
  interface FastifyRequest {
    viewer: Viewer | null;
  }
}

export const sessionCookie = 'quire_session';

export function readCookie(request: FastifyRequest, name: string): string | undefined {
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const [key, ...rest] = part.trim().split('=');
    if (key === name) return rest.join('=');
  }
  return undefined;
}

/** A cookie scripts cannot read, sent only to the dashboard, and only over HTTPS when Quire is served over HTTPS. */
export function cookieHeader(config: Config, name: string, value: string, options: { path: string; maxAgeSeconds: number }): string {
  const secure = config.publicUrl?.startsWith('https:') ? '; Secure' : '';
  return `${name}=${value}; Path=${options.path}; Max-Age=${options.maxAgeSeconds}; HttpOnly; SameSite=Lax${secure}`;
}

/** Where links Quire serves point: the configured public URL, else the address the browser used. */
export function baseUrl(context: AppContext, request: FastifyRequest): string {
  return context.config.publicUrl ?? `${request.protocol}://${request.host}`;
}

/**
 * An `onRequest` hook for every signed-in page: without a live session, pages redirect to the
 * sign-in page and actions are refused, before anything else runs.
 */
export function requireSession(context: AppContext) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const token = readCookie(request, sessionCookie);
    const session = token ? await findSession(context.storage.db, token, context.config.dashboardIdleHours) : undefined;
    // A removed person's sessions are deleted with them; the check stands in case one slipped through.
    const person = session?.person_id ? await findPerson(context.storage.db, session.person_id) : undefined;
    if (!token || !session || (session.person_id && !person)) {
      if (request.method === 'GET' || request.method === 'HEAD') return reply.redirect('/dashboard/sign-in', 303);
      throw new ApiError('unauthorized', 'Your dashboard session has ended. Sign in again at /dashboard/sign-in.');
    }
    request.viewer = {
      sessionId: session.id,
      orgId: session.org_id,
      csrf: csrfToken(token),
      personId: person?.id ?? null,
      name: person?.name ?? 'Operator',
      role: person?.role ?? 'owner',
    };
  };
}

/**
 * Refuses a member what only owners may do (API keys, code-host credentials, people), on the server:
 * hiding a button is not a permission check.
 */
export function requireOwner(request: FastifyRequest, what: string): Viewer {
  const viewer = viewerOf(request);
  if (!canManage(viewer.role)) throw new ApiError('forbidden', `Only an owner of the organization can ${what}; ask an owner to do it, or to make you one.`);
  return viewer;
}

/** A `preHandler` hook: every form post must carry the session's CSRF token. */
export async function requireCsrf(request: FastifyRequest): Promise<void> {
  if (request.method !== 'POST') return;
  // Forms carry the token as a field; the passkey script sends it as a header with its JSON.
  const given = request.body instanceof URLSearchParams ? request.body.get('csrf') : request.headers['x-csrf-token'];
  if (!request.viewer || !sameToken(request.viewer.csrf, given)) {
    throw new ApiError('forbidden', 'This form has expired or did not come from the dashboard. Reload the page and try again.');
  }
}

/** The signed-in viewer of a page (the session hook guarantees one). */
export function viewerOf(request: FastifyRequest): Viewer {
  if (!request.viewer) throw new Error('viewerOf called outside the signed-in dashboard routes');
  return request.viewer;
}

/** A project of the viewer's organization; any other id is "not found", as in the API. */
export async function viewerProject(context: AppContext, request: FastifyRequest, projectId: string): Promise<ProjectRow> {
  const project = await findProject(context.storage.db, projectId);
  if (!project || project.org_id !== viewerOf(request).orgId) throw new ApiError('not_found', `Project ${projectId} was not found in your organization.`);
  return project;
}

/** Form fields of a dashboard post. */
export function formOf(request: FastifyRequest): URLSearchParams {
  return request.body instanceof URLSearchParams ? request.body : new URLSearchParams();
}

export function field(form: URLSearchParams, name: string): string {
  return (form.get(name) ?? '').trim();
}
