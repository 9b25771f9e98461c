import { randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config/config.ts';
import { cookieHeader, readCookie } from './auth.ts';
import { sameToken } from '../accounts/people/sessions.ts';

/**
 * Before a session exists (signing in, accepting an invitation), a form is protected by a random
 * value kept in a cookie and repeated in the form: another site can send the form, not read the cookie.
 */
export const formSecretCookie = 'quire_sign_in';

export function issueFormSecret(reply: FastifyReply, config: Config): string {
  const secret = randomBytes(24).toString('base64url');
  reply.header('set-cookie', cookieHeader(config, formSecretCookie, secret, { path: '/dashboard', maxAgeSeconds: 3600 }));
  return secret;
}

export function formSecretMatches(request: FastifyRequest, given: unknown): boolean {
  const expected = readCookie(request, formSecretCookie);
  return expected !== undefined && sameToken(expected, given);
}

export function clearFormSecret(config: Config): string {
  return cookieHeader(config, formSecretCookie, '', { path: '/dashboard', maxAgeSeconds: 0 });
}
