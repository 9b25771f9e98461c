import type { Kysely } from 'kysely';
import { newId } from '../lib/ids.ts';
import type { Database } from '../storage/schema.ts';
import type { OrganizationRow } from '../storage/tables/accounts.ts';

export async function createOrganization(db: Kysely<Database>, name: string, options: { firstStart?: boolean } = {}): Promise<OrganizationRow> {
  const row: OrganizationRow = { id: newId('org'), name, first_start: options.firstStart ? 1 : 0, server_credentials: 0, created_at: Date.now() };
  await db.insertInto('organizations').values(row).execute();
  return row;
}

export function listOrganizations(db: Kysely<Database>): Promise<OrganizationRow[]> {
  return db.selectFrom('organizations').selectAll().orderBy('created_at').orderBy('id').execute();
}

export function findOrganization(db: Kysely<Database>, id: string): Promise<OrganizationRow | undefined> {
  return db.selectFrom('organizations').selectAll().where('id', '=', id).executeTakeFirst();
}

/** No organization matched: the database holds none yet, or not the one named. */
export class MissingOrganizationError extends Error {}

/** The organization a CLI verb acts on: the one named, or the first one created. */
export async function resolveOrganization(db: Kysely<Database>, id: string | undefined): Promise<OrganizationRow> {
  const organization = id ? await findOrganization(db, id) : (await listOrganizations(db))[0];
  if (!organization) {
    throw new MissingOrganizationError(
      id
        ? `No organization has the id ${id}; "quire orgs list" shows them.`
        : 'There is no organization yet; run "quire orgs create --name NAME" or start the server once.',
    );
  }
  return organization;
}
