import type { Kysely } from 'kysely';
import { newId } from '../../lib/ids.ts';
import type { Database } from '../../storage/schema.ts';
import type { PersonRole, PersonRow } from '../../storage/tables/people.ts';

export const roles: PersonRole[] = ['owner', 'member'];

/** What an owner may do that a member may not: the one place that says so. */
export function canManage(role: PersonRole): boolean {
  return role === 'owner';
}

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** A sentence saying what is wrong with a name and email address, or null. */
export function personProblem(name: string, email: string): string | null {
  if (name.trim() === '' || name.length > 200) return 'Give your name, 1 to 200 characters, so your teammates know who you are.';
  if (!/^[^\s@]+@[^\s@]+$/.test(email) || email.length > 320) return 'Give an email address such as ada@example.com; you sign in with it.';
  return null;
}

export async function createPerson(
  db: Kysely<Database>,
  orgId: string,
  details: { name: string; email: string; role: PersonRole; passwordHash: string | null },
  now = Date.now(),
): Promise<PersonRow> {
  const row: PersonRow = {
    id: newId('per'),
    org_id: orgId,
    name: details.name.trim(),
    email: normalizeEmail(details.email),
    role: details.role,
    password_hash: details.passwordHash,
    created_at: now,
  };
  await db.insertInto('people').values(row).execute();
  return row;
}

export function findPerson(db: Kysely<Database>, id: string): Promise<PersonRow | undefined> {
  return db.selectFrom('people').selectAll().where('id', '=', id).executeTakeFirst();
}

export function findPersonByEmail(db: Kysely<Database>, email: string): Promise<PersonRow | undefined> {
  return db.selectFrom('people').selectAll().where('email', '=', normalizeEmail(email)).executeTakeFirst();
}

/** A person of the organization, or undefined: another organization's person is not found. */
export function findOrganizationPerson(db: Kysely<Database>, orgId: string, id: string): Promise<PersonRow | undefined> {
  return db.selectFrom('people').selectAll().where('id', '=', id).where('org_id', '=', orgId).executeTakeFirst();
}

export function listPeople(db: Kysely<Database>, orgId: string): Promise<PersonRow[]> {
  return db.selectFrom('people').selectAll().where('org_id', '=', orgId).orderBy('created_at').orderBy('id').execute();
}

export async function setPassword(db: Kysely<Database>, personId: string, passwordHash: string): Promise<void> {
  await db.updateTable('people').set({ password_hash: passwordHash }).where('id', '=', personId).execute();
}

export async function setRole(db: Kysely<Database>, orgId: string, personId: string, role: PersonRole): Promise<boolean> {
  const result = await db.updateTable('people').set({ role }).where('id', '=', personId).where('org_id', '=', orgId).executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Removes a person of the organization with their passkeys and sessions; false when there is none. */
export async function removePerson(db: Kysely<Database>, orgId: string, personId: string): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const person = await findOrganizationPerson(trx, orgId, personId);
    if (!person) return false;
    await trx.deleteFrom('dashboard_sessions').where('person_id', '=', personId).execute();
    await trx.deleteFrom('person_passkeys').where('person_id', '=', personId).execute();
    await trx.deleteFrom('people').where('id', '=', personId).execute();
    return true;
  });
}
