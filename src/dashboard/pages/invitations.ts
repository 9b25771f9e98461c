import type { FastifyInstance } from 'fastify';
import { acceptInvitation, findUsableInvitation, InvitationError } from '../../accounts/people/invitations.ts';
import { passkeysUnavailable, relyingParty } from '../../accounts/people/passkeys.ts';
import { hashPassword, passwordProblem } from '../../accounts/people/passwords.ts';
import { personProblem } from '../../accounts/people/people.ts';
import { findOrganization } from '../../accounts/organizations.ts';
import type { AppContext } from '../../http/context.ts';
import { cookieHeader, field, formOf, sessionCookie } from '../auth.ts';
import { clearFormSecret, formSecretMatches, issueFormSecret } from '../form-secret.ts';
import { html, type Html } from '../html.ts';
import { layout, notice, sendPage } from '../layout.ts';
import { openSession } from '../../accounts/people/sessions.ts';

type InvitationParams = { Params: { token: string } };

const unusable = html`${notice('error', 'This invitation was already used, has expired, or is not known.')}
<p>Ask an owner of the organization for a new invitation link. If you already joined, <a href="/dashboard/sign-in">sign in</a>.</p>`;

/** Passkeys are added after joining; without them (an IP address as Quire's address) the password is the only way to sign in again. */
function passwordField(context: AppContext, problem: (name: string) => Html | string, described: (name: string, hint?: string) => Html): Html {
  const passkeys = relyingParty(context.config) !== null;
  const hint = passkeys
    ? 'At least 12 characters. Leave it empty to sign in with a passkey only: you add one on the next page.'
    : `At least 12 characters: you sign in with it. ${passkeysUnavailable(context.config)}`;
  return html`<label for="join-password">${passkeys ? 'Password (optional)' : 'Password'}</label><input id="join-password" name="password" type="password" autocomplete="new-password"${passkeys ? '' : html` required minlength="12"`}${described('password', 'join-password-hint')}>
<p class="hint" id="join-password-hint">${hint}</p>${problem('password')}`;
}

function acceptForm(
  context: AppContext,
  token: string,
  formSecret: string,
  values: { name: string; email: string },
  error?: { field: string; message: string },
): Html {
  const problem = (name: string) => (error?.field === name ? html`<p class="field-error" id="${name}-error" role="alert">${error.message}</p>` : '');
  const described = (name: string, hint = '') =>
    html` aria-describedby="${error?.field === name ? `${name}-error ` : ''}${hint}"${error?.field === name ? html` aria-invalid="true"` : ''}`;
  return html`<form method="post" action="/dashboard/invitations/${token}" class="stack">
<input type="hidden" name="csrf" value="${formSecret}">
${problem('form')}
<label for="join-name">Your name</label><input id="join-name" name="name" required maxlength="200" autocomplete="name" value="${values.name}"${described('name')}>${problem('name')}
<label for="join-email">Email address</label><input id="join-email" name="email" type="email" required maxlength="320" autocomplete="username" value="${values.email}"${described('email', 'join-email-hint')}>
<p class="hint" id="join-email-hint">You sign in with it.</p>${problem('email')}
${passwordField(context, problem, described)}
<button type="submit" class="primary">Join</button>
</form>`;
}

/** Invitation links: a person opens one, chooses a name, email and password or passkey, and joins with the invitation's role. */
export function invitationPages(scope: FastifyInstance, context: AppContext): void {
  scope.get<InvitationParams>('/invitations/:token', async (request, reply) => {
    const invitation = await findUsableInvitation(context.storage.db, request.params.token);
    if (!invitation) return sendPage(reply, layout({ title: 'Invitation', viewer: null, body: unusable }), 404);
    const organization = await findOrganization(context.storage.db, invitation.org_id);
    const body = html`<p>You are invited to join <strong>${organization?.name ?? 'an organization'}</strong> on Quire as ${invitation.role === 'owner' ? 'an owner' : 'a member'}. The link works once.</p>
${acceptForm(context, request.params.token, issueFormSecret(reply, context.config), { name: '', email: '' })}`;
    return sendPage(reply, layout({ title: 'Join', viewer: null, body }));
  });

  scope.post<InvitationParams>('/invitations/:token', async (request, reply) => {
    const { token } = request.params;
    const form = formOf(request);
    const values = { name: field(form, 'name'), email: field(form, 'email') };
    const again = (error: { field: string; message: string }, status: number) =>
      sendPage(reply, layout({ title: 'Join', viewer: null, body: acceptForm(context, token, issueFormSecret(reply, context.config), values, error) }), status);
    if (!formSecretMatches(request, form.get('csrf')))
      return again({ field: 'form', message: 'This form did not come from this browser; send it again.' }, 403);
    const detailsProblem = personProblem(values.name, values.email);
    if (detailsProblem) return again({ field: detailsProblem.includes('email') ? 'email' : 'name', message: detailsProblem }, 400);
    const password = form.get('password') ?? '';
    const weak = password === '' ? null : passwordProblem(password);
    if (weak) return again({ field: 'password', message: weak }, 400);
    if (password === '' && !relyingParty(context.config)) {
      return again(
        { field: 'password', message: 'Choose a password of at least 12 characters: passkeys cannot be used at this address, so you sign in with it.' },
        400,
      );
    }
    if (!(await findUsableInvitation(context.storage.db, token))) return sendPage(reply, layout({ title: 'Invitation', viewer: null, body: unusable }), 404);
    try {
      const person = await acceptInvitation(context.storage.db, token, { ...values, passwordHash: password === '' ? null : await hashPassword(password) });
      const session = await openSession(context.storage.db, person.org_id, person.id, context.config.dashboardSessionHours);
      reply.header('set-cookie', [
        cookieHeader(context.config, sessionCookie, session.token, { path: '/dashboard', maxAgeSeconds: context.config.dashboardSessionHours * 3600 }),
        clearFormSecret(context.config),
      ]);
      return reply.redirect('/dashboard/account?welcome=1', 303);
    } catch (error) {
      if (!(error instanceof InvitationError)) throw error;
      return again({ field: error.message.includes('email') ? 'email' : 'form', message: error.message }, 409);
    }
  });
}
