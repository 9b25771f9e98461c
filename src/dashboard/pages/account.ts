import type { FastifyInstance } from 'fastify';
import { listPasskeys, passkeysUnavailable, registerPasskey, registrationOptions, relyingParty, removePasskey } from '../../accounts/people/passkeys.ts';
import { hashPassword, passwordProblem, verifyPassword } from '../../accounts/people/passwords.ts';
import { findPerson, setPassword } from '../../accounts/people/people.ts';
import type { AppContext } from '../../http/context.ts';
import { ApiError } from '../../http/errors.ts';
import type { PersonRow } from '../../storage/tables/people.ts';
import { cookieHeader, formOf, sessionCookie, viewerOf } from '../auth.ts';
import { html, time, type Html } from '../html.ts';
import { csrfField, layout, notice, sendPage, type Viewer } from '../layout.ts';
import { endSessionsOf } from '../../accounts/people/sessions.ts';

async function personOf(context: AppContext, viewer: Viewer): Promise<PersonRow> {
  const person = viewer.personId ? await findPerson(context.storage.db, viewer.personId) : undefined;
  if (!person)
    throw new ApiError(
      'not_found',
      'This session was opened with a sign-in link and belongs to no person: accept an invitation from the People page to get passkeys and a password.',
    );
  return person;
}

function signOutEverywhere(viewer: Viewer): Html {
  return html`<section aria-labelledby="everywhere"><h2 id="everywhere">Sign out everywhere</h2>
<p>Ends every session of ${viewer.personId ? 'yours' : 'sign-in links of this organization'}, on every device, this one included. Use it when a device is lost or shared.</p>
<form method="post" action="/dashboard/account/sign-out-everywhere">${csrfField(viewer)}<button type="submit" class="danger">Sign out everywhere</button></form></section>`;
}

async function accountPage(context: AppContext, viewer: Viewer, message?: Html): Promise<Html> {
  if (!viewer.personId) {
    const body = html`${message ?? ''}<p>You signed in with a one-time link from <code>quire dashboard link</code>: this session acts as an owner and belongs to no person.</p>
<p>To sign in without a shell on the server next time, create an invitation for yourself on the <a href="/dashboard/people">People</a> page and open it.</p>${signOutEverywhere(viewer)}`;
    return layout({ title: 'Your account', viewer, section: 'account', body });
  }
  const person = await personOf(context, viewer);
  const passkeys = await listPasskeys(context.storage.db, person.id);
  const party = relyingParty(context.config);
  const rows = passkeys.map(
    (passkey, index) => html`<tr><td>Passkey ${index + 1}</td><td>${time(passkey.created_at)}</td><td>${time(passkey.last_used_at)}</td>
<td><form method="post" action="/dashboard/account/passkeys/${passkey.id}/remove">${csrfField(viewer)}<button type="submit" class="danger">Remove<span class="visually-hidden"> passkey ${index + 1}</span></button></form></td></tr>`,
  );
  const body = html`${message ?? ''}
<dl class="job"><dt>Name</dt><dd>${person.name}</dd><dt>Email</dt><dd>${person.email}</dd><dt>Role</dt><dd>${person.role}</dd></dl>
<section aria-labelledby="passkeys"><h2 id="passkeys">Passkeys</h2>
${rows.length > 0 ? html`<div class="scroll"><table><thead><tr><th scope="col">Passkey</th><th scope="col">Added</th><th scope="col">Last used</th><th scope="col">Action</th></tr></thead><tbody>${rows}</tbody></table></div>` : html`<p>No passkeys yet. A passkey signs you in with your device's lock (fingerprint, face or PIN), and cannot be phished.</p>`}
${party ? html`<button type="button" class="primary" data-passkey-register data-csrf="${viewer.csrf}">Add a passkey</button><p class="field-error" data-passkey-error role="alert" hidden></p>` : html`<p class="hint">${passkeysUnavailable(context.config)}</p>`}</section>
<section aria-labelledby="password"><h2 id="password">Password</h2>
<form method="post" action="/dashboard/account/password" class="stack">${csrfField(viewer)}
${person.password_hash ? html`<label for="current-password">Current password</label><input id="current-password" name="current" type="password" autocomplete="current-password" required>` : ''}
<label for="new-password">New password</label><input id="new-password" name="password" type="password" autocomplete="new-password" required minlength="12" aria-describedby="new-password-hint">
<p class="hint" id="new-password-hint">At least 12 characters.</p>
<button type="submit">${person.password_hash ? 'Change password' : 'Set a password'}</button></form></section>
${signOutEverywhere(viewer)}`;
  return layout({ title: 'Your account', viewer, section: 'account', body });
}

/** A person's own page: passkeys, password, and signing out everywhere. */
export function accountPages(scope: FastifyInstance, context: AppContext): void {
  scope.get<{ Querystring: { welcome?: string } }>('/account', async (request, reply) => {
    // Without passkeys the invitation page asked for a password, so there is nothing to add.
    const advice = relyingParty(context.config)
      ? 'Add a passkey now, or set a password, so you can sign in again later.'
      : 'You sign in with your email address and password.';
    const welcome = request.query.welcome === '1' ? notice('success', `Welcome! ${advice}`) : undefined;
    return sendPage(reply, await accountPage(context, viewerOf(request), welcome));
  });

  scope.post('/account/password', async (request, reply) => {
    const viewer = viewerOf(request);
    const person = await personOf(context, viewer);
    const form = formOf(request);
    if (person.password_hash && !(await verifyPassword(form.get('current') ?? '', person.password_hash)))
      return sendPage(reply, await accountPage(context, viewer, notice('error', 'The current password is not right; nothing was changed.')), 400);
    const password = form.get('password') ?? '';
    const problem = passwordProblem(password);
    if (problem) return sendPage(reply, await accountPage(context, viewer, notice('error', problem)), 400);
    await setPassword(context.storage.db, person.id, await hashPassword(password));
    return sendPage(reply, await accountPage(context, viewer, notice('success', 'Your password is saved.')));
  });

  scope.post('/account/passkeys/options', async (request, reply) => {
    const party = relyingParty(context.config);
    if (!party) return reply.code(409).send({ error: passkeysUnavailable(context.config), code: 'conflict' });
    return registrationOptions(context.storage.db, party, await personOf(context, viewerOf(request)));
  });

  scope.post<{ Body: { handle?: unknown; response?: unknown } }>('/account/passkeys', async (request, reply) => {
    const party = relyingParty(context.config);
    const person = await personOf(context, viewerOf(request));
    const { handle, response } = request.body ?? {};
    const added =
      party && typeof handle === 'string' && typeof response === 'object' && response !== null
        ? await registerPasskey(context.storage.db, party, person, handle, response as Parameters<typeof registerPasskey>[4])
        : false;
    if (!added) return reply.code(400).send({ error: 'The passkey could not be verified; try again.', code: 'invalid_request' });
    return { redirect: '/dashboard/account' };
  });

  scope.post<{ Params: { id: string } }>('/account/passkeys/:id/remove', async (request, reply) => {
    const viewer = viewerOf(request);
    const person = await personOf(context, viewer);
    if (!(await removePasskey(context.storage.db, person.id, request.params.id))) throw new ApiError('not_found', 'That passkey is not one of yours.');
    return sendPage(reply, await accountPage(context, viewer, notice('success', 'The passkey was removed.')));
  });

  scope.post('/account/sign-out-everywhere', async (request, reply) => {
    const viewer = viewerOf(request);
    const ended = await endSessionsOf(context.storage.db, viewer.orgId, viewer.personId);
    reply.header('set-cookie', cookieHeader(context.config, sessionCookie, '', { path: '/dashboard', maxAgeSeconds: 0 }));
    const body = html`${notice('success', `Signed out everywhere: ${ended} ${ended === 1 ? 'session' : 'sessions'} ended.`)}<p><a href="/dashboard/sign-in">Sign in again</a></p>`;
    return sendPage(reply, layout({ title: 'Signed out', viewer: null, body }));
  });
}
