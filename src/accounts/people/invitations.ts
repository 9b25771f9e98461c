import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import { newId, randomBase62 } from '../../lib/ids.ts';
import type { Database } from '../../storage/schema.ts';
import type { InvitationRow, PersonRole, PersonRow } from '../../storage/tables/people.ts';
import { createPerson, findPersonByEmail } from './people.ts';

const tokenLength = 43;

function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

export interface NewInvitation {
  /** The secret part of the link; stored only as a hash, shown to the owner once. */
  token: string;
  row: InvitationRow;
}

/** The address of an invitation link. */
export function invitationUrl(baseUrl: string, token: string): string {
  return `${baseUrl.replace(/\/$/, '')}/dashboard/invitations/${token}`;
}

export async function createInvitation(
  db: Kysely<Database>,
  orgId: string,
  options: { role: PersonRole; note: string; hours: number },
  now = Date.now(),
): Promise<NewInvitation> {
  const token = randomBase62(tokenLength);
  const row: InvitationRow = {
    id: newId('inv'),
    token_hash: hashToken(token),
    org_id: orgId,
    role: options.role,
    note: options.note,
    created_at: now,
    expires_at: now + options.hours * 3_600_000,
    used_at: null,
    person_id: null,
  };
  await db.insertInto('invitations').values(row).execute();
  return { token, row };
}

/** Invitations of the organization nobody has used yet and that have not expired, newest first. */
export function listOpenInvitations(db: Kysely<Database>, orgId: string, now = Date.now()): Promise<InvitationRow[]> {
  return db
    .selectFrom('invitations')
    .selectAll()
    .where('org_id', '=', orgId)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .orderBy('created_at', 'desc')
    .execute();
}

/** The invitation a link names while it can still be used; undefined when unknown, used or expired. */
export function findUsableInvitation(db: Kysely<Database>, token: string, now = Date.now()): Promise<InvitationRow | undefined> {
  if (!/^[0-9A-Za-z]{1,100}$/.test(token)) return Promise.resolve(undefined);
  return db
    .selectFrom('invitations')
    .selectAll()
    .where('token_hash', '=', hashToken(token))
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
}

/** Withdraws an open invitation of the organization; false when there is none. */
export async function withdrawInvitation(db: Kysely<Database>, orgId: string, id: string, now = Date.now()): Promise<boolean> {
  const result = await db
    .updateTable('invitations')
    .set({ used_at: now })
    .where('id', '=', id)
    .where('org_id', '=', orgId)
    .where('used_at', 'is', null)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export class InvitationError extends Error {}

/**
 * Accepts an invitation: creates the person with the invitation's organization and role. The
 * invitation is marked used in the statement that checks it, so two browsers racing with one link
 * cannot both join. Throws InvitationError with what to do when it cannot.
 */
export async function acceptInvitation(
  db: Kysely<Database>,
  token: string,
  details: { name: string; email: string; passwordHash: string | null },
  now = Date.now(),
): Promise<PersonRow> {
  return db.transaction().execute(async (trx) => {
    const claimed = await trx
      .updateTable('invitations')
      .set({ used_at: now })
      .where('token_hash', '=', hashToken(token))
      .where('used_at', 'is', null)
      .where('expires_at', '>', now)
      .executeTakeFirst();
    if (claimed.numUpdatedRows === 0n)
      throw new InvitationError('This invitation was already used, has expired, or is not known. Ask an owner of the organization for a new one.');
    if (await findPersonByEmail(trx, details.email))
      throw new InvitationError('That email address already has an account: sign in with it, or use another address.');
    const invitation = await trx.selectFrom('invitations').selectAll().where('token_hash', '=', hashToken(token)).executeTakeFirstOrThrow();
    const person = await createPerson(trx, invitation.org_id, { ...details, role: invitation.role }, now);
    await trx.updateTable('invitations').set({ person_id: person.id }).where('id', '=', invitation.id).execute();
    return person;
  });
}
