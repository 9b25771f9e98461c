import type { FastifyInstance } from 'fastify';
import { createSignInLink } from '../../src/accounts/people/sessions.ts';
import type { Storage } from '../../src/storage/dialect.ts';

export interface SignedIn {
  /** The Cookie header of the session. */
  cookie: string;
  /** The CSRF token the session's forms carry. */
  csrf: string;
}

/** Pulls `name=value` out of Set-Cookie headers. */
export function cookieValue(setCookie: string | string[] | undefined, name: string): string | undefined {
  for (const header of [setCookie ?? []].flat()) {
    const match = new RegExp(`^${name}=([^;]*)`).exec(header);
    if (match) return match[1];
  }
  return undefined;
}

export function csrfOf(page: string): string {
  const match = /name="csrf" value="([^"]+)"/.exec(page);
  if (!match) throw new Error('the page has no form with a CSRF token');
  return match[1];
}

/** Signs in to the organization's dashboard the way a browser does: open the link, press the button. */
export async function signIn(app: FastifyInstance, storage: Storage, orgId: string): Promise<SignedIn> {
  const link = await createSignInLink(storage.db, orgId, 30);
  const page = await app.inject({ method: 'GET', url: `/dashboard/sign-in?token=${link.token}` });
  const formSecret = cookieValue(page.headers['set-cookie'], 'quire_sign_in')!;
  const response = await app.inject({
    method: 'POST',
    url: '/dashboard/sign-in',
    headers: { cookie: `quire_sign_in=${formSecret}`, 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ token: link.token, csrf: csrfOf(page.body) }).toString(),
  });
  if (response.statusCode !== 303) throw new Error(`sign-in failed with ${response.statusCode}: ${response.body}`);
  const cookie = `quire_session=${cookieValue(response.headers['set-cookie'], 'quire_session')}`;
  const keys = await app.inject({ method: 'GET', url: '/dashboard/keys', headers: { cookie } });
  return { cookie, csrf: csrfOf(keys.body) };
}

/** A form post as a browser sends it. */
export function form(fields: Record<string, string | string[]>): string {
  const body = new URLSearchParams();
  for (const [name, value] of Object.entries(fields)) for (const item of [value].flat()) body.append(name, item);
  return body.toString();
}
