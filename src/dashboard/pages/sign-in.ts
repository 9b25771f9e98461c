import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../http/context.ts';
import { cookieHeader, field, formOf, readCookie, requireCsrf, requireSession, sessionCookie, viewerOf } from '../auth.ts';
import { html } from '../html.ts';
import { layout, notice, sendPage } from '../layout.ts';
import { endSession, redeemSignInLink, sameToken } from '../sessions.ts';

/** Before a session exists, the sign-in form is protected by a random value kept in a cookie and repeated in the form. */
const signInCookie = 'quire_sign_in';

const howToGetALink = html`<p>Sign-in links are printed by the server: on the first start beside the first API key, and whenever you run</p>
<pre><code>npx quire dashboard link</code></pre>
<p>on the machine that runs Quire (add <code>--org ID</code> for another organization). A link works once and expires after a while.</p>`;

export function signInPages(scope: FastifyInstance, context: AppContext): void {
  scope.get<{ Querystring: { token?: string } }>('/sign-in', (request, reply) => {
    const token = request.query.token;
    if (!token) return sendPage(reply, layout({ title: 'Sign in', viewer: null, body: howToGetALink }));
    const formSecret = randomBytes(24).toString('base64url');
    reply.header('set-cookie', cookieHeader(context.config, signInCookie, formSecret, { path: '/dashboard/sign-in', maxAgeSeconds: 3600 }));
    // Signing in takes a button press: link previewers and mail scanners that open the link do not use it up.
    const body = html`<p>This link signs this browser in to the Quire dashboard. It works once.</p>
<form method="post" action="/dashboard/sign-in">
<input type="hidden" name="token" value="${token}">
<input type="hidden" name="csrf" value="${formSecret}">
<button type="submit" class="primary">Sign in</button>
</form>`;
    return sendPage(reply, layout({ title: 'Sign in', viewer: null, body }));
  });

  scope.post('/sign-in', async (request, reply) => {
    const form = formOf(request);
    const expected = readCookie(request, signInCookie);
    if (!expected || !sameToken(expected, form.get('csrf'))) {
      const body = html`${notice('error', 'This sign-in form did not come from this browser. Open the sign-in link again.')}${howToGetALink}`;
      return sendPage(reply, layout({ title: 'Sign in', viewer: null, body }), 403);
    }
    const session = await redeemSignInLink(context.storage.db, field(form, 'token'), context.config.dashboardSessionHours);
    if (!session) {
      const body = html`${notice('error', 'This sign-in link was already used, has expired, or is not known. Get a new one:')}${howToGetALink}`;
      return sendPage(reply, layout({ title: 'Sign in', viewer: null, body }), 400);
    }
    reply.header('set-cookie', [
      cookieHeader(context.config, sessionCookie, session.token, { path: '/dashboard', maxAgeSeconds: context.config.dashboardSessionHours * 3600 }),
      cookieHeader(context.config, signInCookie, '', { path: '/dashboard/sign-in', maxAgeSeconds: 0 }),
    ]);
    return reply.redirect('/dashboard/keys', 303);
  });

  scope.post('/sign-out', { onRequest: requireSession(context), preHandler: requireCsrf }, async (request, reply) => {
    await endSession(context.storage.db, viewerOf(request).sessionId);
    reply.header('set-cookie', cookieHeader(context.config, sessionCookie, '', { path: '/dashboard', maxAgeSeconds: 0 }));
    return sendPage(reply, layout({ title: 'Signed out', viewer: null, body: html`${notice('success', 'You are signed out.')}${howToGetALink}` }));
  });
}
