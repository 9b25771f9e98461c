import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { authenticate, authenticationOptions, passkeysUnavailable, relyingParty } from '../../accounts/people/passkeys.ts';
import { decoyHash, verifyPassword } from '../../accounts/people/passwords.ts';
import { findPersonByEmail, normalizeEmail } from '../../accounts/people/people.ts';
import { clientAddressResolver, clientNetwork } from '../../http/client-address.ts';
import type { AppContext } from '../../http/context.ts';
import { rateLimited, takeRateLimit } from '../../http/rate-limit.ts';
import { cookieHeader, field, formOf, requireCsrf, requireSession, sessionCookie, viewerOf } from '../auth.ts';
import { clearFormSecret, formSecretMatches, issueFormSecret } from '../form-secret.ts';
import { html, type Html } from '../html.ts';
import { layout, notice, sendPage } from '../layout.ts';
import { endSession, openSession, redeemSignInLink, type NewSession } from '../../accounts/people/sessions.ts';

const recovery = html`<details class="recovery"><summary>No passkey or password yet, or locked out?</summary>
<p>Ask an owner of your organization for an invitation link. The operator of the server can always print a one-time sign-in link on the machine that runs Quire:</p>
<pre><code>npx quire dashboard link</code></pre>
<p>(add <code>--org ID</code> for another organization). A link works once and expires after a while.</p></details>`;

function signInForms(context: AppContext, formSecret: string, email = '', error?: string): Html {
  const passkeys = relyingParty(context.config)
    ? html`<section aria-labelledby="with-passkey"><h2 id="with-passkey">With a passkey</h2>
<button type="button" class="primary" data-passkey-sign-in data-csrf="${formSecret}">Sign in with a passkey</button>
<p class="field-error" data-passkey-error role="alert" hidden></p></section>`
    : html`<p class="hint">${passkeysUnavailable(context.config)}</p>`;
  return html`${passkeys}
<section aria-labelledby="with-password"><h2 id="with-password">With a password</h2>
<form method="post" action="/dashboard/sign-in/password" class="stack">
<input type="hidden" name="csrf" value="${formSecret}">
<label for="sign-in-email">Email address</label><input id="sign-in-email" name="email" type="email" autocomplete="username webauthn" required value="${email}">
<label for="sign-in-password">Password</label><input id="sign-in-password" name="password" type="password" autocomplete="current-password" required${
    error ? html` aria-invalid="true" aria-describedby="sign-in-error"` : ''
  }>
${error ? html`<p class="field-error" id="sign-in-error" role="alert">${error}</p>` : ''}
<button type="submit" class="primary">Sign in</button>
</form></section>
${recovery}`;
}

function signedIn(context: AppContext, reply: FastifyReply, session: NewSession): void {
  reply.header('set-cookie', [
    cookieHeader(context.config, sessionCookie, session.token, { path: '/dashboard', maxAgeSeconds: context.config.dashboardSessionHours * 3600 }),
    clearFormSecret(context.config),
  ]);
}

/**
 * Password guesses are limited per client network (an IPv4 address, an IPv6 /64: one host's share) and per
 * account, so neither many accounts nor many addresses help.
 */
async function allowPasswordAttempt(context: AppContext, network: string, email: string): Promise<void> {
  await allowAttempt(context, [`sign-in:address:${network}`, `sign-in:account:${email}`], 1);
}

/**
 * Every bucket takes one attempt of `factor` times the sign-in limit. Passkey ceremonies get a larger
 * share (a cancelled prompt is retried) but are still bounded, so nobody fills the challenge table.
 */
async function allowAttempt(context: AppContext, buckets: string[], factor: number): Promise<void> {
  const rule = { limit: context.config.signInRateLimit * factor, windowMs: context.config.signInRateWindowSeconds * 1000 };
  const { db, profile } = context.storage;
  const states = await db.transaction().execute(async (trx) => {
    const taken = [];
    for (const bucket of buckets) taken.push(await takeRateLimit(trx, profile, bucket, rule));
    return taken;
  });
  const refused = states.find((state) => !state.allowed);
  if (refused) throw rateLimited(refused, 'Too many sign-in attempts.');
}

export function signInPages(scope: FastifyInstance, context: AppContext): void {
  const clientAddress = clientAddressResolver(context.config.trustedProxies);

  scope.get<{ Querystring: { token?: string } }>('/sign-in', (request, reply) => {
    const token = request.query.token;
    const formSecret = issueFormSecret(reply, context.config);
    if (!token) return sendPage(reply, layout({ title: 'Sign in', viewer: null, body: signInForms(context, formSecret) }));
    // Signing in takes a button press: link previewers and mail scanners that open the link do not use it up.
    const body = html`<p>This link signs this browser in to the Quire dashboard. It works once.</p>
<form method="post" action="/dashboard/sign-in">
<input type="hidden" name="token" value="${token}">
<input type="hidden" name="csrf" value="${formSecret}">
<button type="submit" class="primary">Sign in</button>
</form>`;
    return sendPage(reply, layout({ title: 'Sign in', viewer: null, body }));
  });

  const foreignForm = (request: FastifyRequest, reply: FastifyReply) => {
    const body = html`${notice('error', 'This sign-in form did not come from this browser. Open the sign-in page again.')}${signInForms(context, issueFormSecret(reply, context.config))}`;
    return sendPage(reply, layout({ title: 'Sign in', viewer: null, body }), 403);
  };

  scope.post('/sign-in', async (request, reply) => {
    const form = formOf(request);
    if (!formSecretMatches(request, form.get('csrf'))) return foreignForm(request, reply);
    const session = await redeemSignInLink(context.storage.db, field(form, 'token'), context.config.dashboardSessionHours);
    if (!session) {
      const body = html`${notice('error', 'This sign-in link was already used, has expired, or is not known. Sign in below, or get a new link.')}${signInForms(context, issueFormSecret(reply, context.config))}`;
      return sendPage(reply, layout({ title: 'Sign in', viewer: null, body }), 400);
    }
    signedIn(context, reply, session);
    return reply.redirect('/dashboard/keys', 303);
  });

  scope.post('/sign-in/password', async (request, reply) => {
    const form = formOf(request);
    if (!formSecretMatches(request, form.get('csrf'))) return foreignForm(request, reply);
    const email = normalizeEmail(field(form, 'email'));
    await allowPasswordAttempt(context, clientNetwork(clientAddress(request)), email);
    const person = email === '' ? undefined : await findPersonByEmail(context.storage.db, email);
    const password = form.get('password') ?? '';
    // An unknown address costs the same scrypt run as a wrong password, so timing does not reveal accounts.
    const matches = await verifyPassword(password, person?.password_hash ?? (await decoyHash()));
    if (!person || !person.password_hash || !matches) {
      const body = signInForms(context, issueFormSecret(reply, context.config), email, 'That email address and password do not match an account.');
      return sendPage(reply, layout({ title: 'Sign in', viewer: null, body }), 400);
    }
    signedIn(context, reply, await openSession(context.storage.db, person.org_id, person.id, context.config.dashboardSessionHours));
    return reply.redirect('/dashboard/keys', 303);
  });

  scope.post<{ Body: { csrf?: unknown } }>('/sign-in/passkey/options', async (request, reply) => {
    const party = relyingParty(context.config);
    if (!party) return reply.code(409).send({ error: passkeysUnavailable(context.config), code: 'conflict' });
    if (!formSecretMatches(request, request.body?.csrf)) return reply.code(403).send({ error: 'Reload the sign-in page and try again.', code: 'forbidden' });
    await allowAttempt(context, [`passkey:address:${clientNetwork(clientAddress(request))}`], 3);
    return authenticationOptions(context.storage.db, party);
  });

  scope.post<{ Body: { csrf?: unknown; handle?: unknown; response?: unknown } }>('/sign-in/passkey', async (request, reply) => {
    const party = relyingParty(context.config);
    const body = request.body ?? {};
    if (!party || !formSecretMatches(request, body.csrf) || typeof body.handle !== 'string' || typeof body.response !== 'object' || body.response === null)
      return reply.code(400).send({ error: 'Reload the sign-in page and try again.', code: 'invalid_request' });
    const person = await authenticate(context.storage.db, party, body.handle, body.response as Parameters<typeof authenticate>[3]);
    if (!person)
      return reply
        .code(400)
        .send({ error: 'That passkey is not known here, or it did not verify. Try another, or sign in with your password.', code: 'invalid_request' });
    signedIn(context, reply, await openSession(context.storage.db, person.org_id, person.id, context.config.dashboardSessionHours));
    return { redirect: '/dashboard/keys' };
  });

  scope.post('/sign-out', { onRequest: requireSession(context), preHandler: requireCsrf }, async (request, reply) => {
    await endSession(context.storage.db, viewerOf(request).sessionId);
    reply.header('set-cookie', cookieHeader(context.config, sessionCookie, '', { path: '/dashboard', maxAgeSeconds: 0 }));
    const body = html`${notice('success', 'You are signed out.')}<p><a href="/dashboard/sign-in">Sign in again</a></p>`;
    return sendPage(reply, layout({ title: 'Signed out', viewer: null, body }));
  });
}
