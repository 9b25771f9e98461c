import type { FastifyInstance } from 'fastify';
import { createInvitation, invitationUrl, listOpenInvitations, withdrawInvitation } from '../../accounts/people/invitations.ts';
import { findOrganizationPerson, listPeople, removePerson, roles, setRole } from '../../accounts/people/people.ts';
import type { AppContext } from '../../http/context.ts';
import { ApiError } from '../../http/errors.ts';
import type { PersonRole } from '../../storage/tables/people.ts';
import { baseUrl, field, formOf, requireOwner } from '../auth.ts';
import { html, time, type Html } from '../html.ts';
import { csrfField, layout, notice, sendPage, type Viewer } from '../layout.ts';

const what = 'manage the people of the organization';

function roleSelect(id: string, current: PersonRole): Html {
  return html`<select id="${id}" name="role">${roles.map((role) => html`<option value="${role}"${role === current ? html` selected` : ''}>${role}</option>`)}</select>`;
}

async function peoplePage(context: AppContext, viewer: Viewer, message?: Html): Promise<Html> {
  const [people, invitations] = await Promise.all([listPeople(context.storage.db, viewer.orgId), listOpenInvitations(context.storage.db, viewer.orgId)]);
  const rows = people.map(
    (person) => html`<tr><td>${person.name}${person.id === viewer.personId ? ' (you)' : ''}</td><td>${person.email}</td>
<td><form method="post" action="/dashboard/people/${person.id}/role" class="inline">${csrfField(viewer)}<label class="visually-hidden" for="role-${person.id}">Role of ${person.name}</label>${roleSelect(`role-${person.id}`, person.role)} <button type="submit">Change<span class="visually-hidden"> the role of ${person.name}</span></button></form></td>
<td>${time(person.created_at)}</td>
<td>${person.id === viewer.personId ? '–' : html`<form method="post" action="/dashboard/people/${person.id}/remove">${csrfField(viewer)}<button type="submit" class="danger">Remove<span class="visually-hidden"> ${person.name}</span></button></form>`}</td></tr>`,
  );
  const peopleTable =
    rows.length === 0
      ? html`<p>Nobody has joined yet. Invite your teammates, and yourself, so nobody needs a shell on the server to sign in.</p>`
      : html`<div class="scroll"><table><thead><tr><th scope="col">Name</th><th scope="col">Email</th><th scope="col">Role</th><th scope="col">Joined</th><th scope="col">Action</th></tr></thead><tbody>${rows}</tbody></table></div>`;
  const open = invitations.map(
    (invitation) => html`<tr><td>${invitation.note || '–'}</td><td>${invitation.role}</td><td>${time(invitation.expires_at)}</td>
<td><form method="post" action="/dashboard/people/invitations/${invitation.id}/withdraw">${csrfField(viewer)}<button type="submit">Withdraw<span class="visually-hidden"> the invitation ${invitation.note}</span></button></form></td></tr>`,
  );
  const body = html`${message ?? ''}
<p>People sign in with a passkey or a password. Owners manage API keys, code-host connections and people; members create jobs, edit projects and read analytics.</p>
<section aria-labelledby="invite"><h2 id="invite">Invite someone</h2>
<form method="post" action="/dashboard/people/invitations" class="stack">${csrfField(viewer)}
<label for="invite-note">Who it is for</label><input id="invite-note" name="note" maxlength="200" placeholder="Ada, docs team" aria-describedby="invite-note-hint">
<p class="hint" id="invite-note-hint">A reminder for you; the person chooses their own name and email address.</p>
<label for="invite-role">Role</label>${roleSelect('invite-role', 'member')}
<button type="submit" class="primary">Create invitation link</button>
</form></section>
<section aria-labelledby="members"><h2 id="members">People</h2>${peopleTable}</section>
${open.length > 0 ? html`<section aria-labelledby="open"><h2 id="open">Open invitations</h2><div class="scroll"><table><thead><tr><th scope="col">For</th><th scope="col">Role</th><th scope="col">Expires</th><th scope="col">Action</th></tr></thead><tbody>${open}</tbody></table></div></section>` : ''}`;
  return layout({ title: 'People', viewer, section: 'people', body });
}

function roleOf(form: URLSearchParams): PersonRole {
  const role = field(form, 'role');
  if (!roles.includes(role as PersonRole)) throw new ApiError('invalid_request', 'Choose the role owner or member.');
  return role as PersonRole;
}

export function peoplePages(scope: FastifyInstance, context: AppContext): void {
  scope.get('/people', async (request, reply) => sendPage(reply, await peoplePage(context, requireOwner(request, what))));

  scope.post('/people/invitations', async (request, reply) => {
    const viewer = requireOwner(request, what);
    const form = formOf(request);
    const { token, row } = await createInvitation(context.storage.db, viewer.orgId, {
      role: roleOf(form),
      note: field(form, 'note').slice(0, 200),
      hours: context.config.invitationHours,
    });
    const url = invitationUrl(baseUrl(context, request), token);
    const shown = html`<section class="notice warning secret" aria-labelledby="new-invitation"><h2 id="new-invitation">Invitation link${row.note ? ` for ${row.note}` : ''}</h2>
<p><strong>Send this link to the person now: it is shown only this once.</strong> It works once, until ${time(row.expires_at)}, and makes them ${row.role === 'owner' ? 'an owner' : 'a member'}.</p>
<div class="copyable"><pre><code>${url}</code></pre><button type="button" data-copy="${url}" aria-label="Copy the invitation link">Copy</button></div></section>`;
    return sendPage(reply, await peoplePage(context, viewer, shown));
  });

  scope.post<{ Params: { id: string } }>('/people/invitations/:id/withdraw', async (request, reply) => {
    const viewer = requireOwner(request, what);
    if (!(await withdrawInvitation(context.storage.db, viewer.orgId, request.params.id)))
      throw new ApiError('not_found', `Invitation ${request.params.id} was not found among the open invitations of your organization.`);
    return sendPage(reply, await peoplePage(context, viewer, notice('success', 'The invitation was withdrawn; its link no longer works.')));
  });

  scope.post<{ Params: { id: string } }>('/people/:id/role', async (request, reply) => {
    const viewer = requireOwner(request, what);
    // Another organization's person is "not found" before anything about the form is said.
    if (!(await findOrganizationPerson(context.storage.db, viewer.orgId, request.params.id)))
      throw new ApiError('not_found', `Person ${request.params.id} was not found in your organization.`);
    const role = roleOf(formOf(request));
    if (request.params.id === viewer.personId && role !== 'owner')
      return sendPage(reply, await peoplePage(context, viewer, notice('error', 'You cannot make yourself a member; ask another owner to do it.')), 400);
    if (!(await setRole(context.storage.db, viewer.orgId, request.params.id, role)))
      throw new ApiError('not_found', `Person ${request.params.id} was not found in your organization.`);
    return sendPage(reply, await peoplePage(context, viewer, notice('success', `The role is now ${role}.`)));
  });

  scope.post<{ Params: { id: string } }>('/people/:id/remove', async (request, reply) => {
    const viewer = requireOwner(request, what);
    if (request.params.id === viewer.personId)
      return sendPage(reply, await peoplePage(context, viewer, notice('error', 'You cannot remove yourself; ask another owner to do it.')), 400);
    if (!(await removePerson(context.storage.db, viewer.orgId, request.params.id)))
      throw new ApiError('not_found', `Person ${request.params.id} was not found in your organization.`);
    return sendPage(reply, await peoplePage(context, viewer, notice('success', 'Removed: their passkeys are deleted and their sessions ended.')));
  });
}
