import { realpath, stat } from 'node:fs/promises';
import { isAbsolute, relative, resolve } from 'node:path';
import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.ts';
import type { LocalGrantRow, OrganizationRow } from '../storage/tables/accounts.ts';

/** Whether `child` is `parent` or below it; both are real paths, so `..` and symlinks are resolved already. */
export function isWithin(parent: string, child: string): boolean {
  const path = relative(parent, child);
  return path === '' || (path !== '..' && !path.startsWith('../') && !isAbsolute(path));
}

/** The real path of QUIRE_DATA_DIR: its database, workspaces and mirrors are never a project's repository. */
export async function realDataDir(dataDir: string): Promise<string> {
  return realpath(dataDir).catch(() => resolve(dataDir));
}

/** Grants a directory (stored as its real path) and every repository below it to the organization. */
export async function grantLocal(db: Kysely<Database>, dataDir: string, orgId: string, path: string): Promise<LocalGrantRow> {
  const real = await realpath(path).catch(() => null);
  if (!real || !(await stat(real)).isDirectory())
    throw new Error(`${path} is not a directory on this machine; grant the directory that holds the repositories.`);
  const data = await realDataDir(dataDir);
  if (isWithin(real, data) || isWithin(data, real)) {
    throw new Error(
      `${path} holds or is inside Quire's data directory (QUIRE_DATA_DIR, ${data}); grant a directory beside it that holds only documentation repositories.`,
    );
  }
  const row: LocalGrantRow = { org_id: orgId, path: real, created_at: Date.now() };
  await db
    .insertInto('local_grants')
    .values(row)
    .onConflict((conflict) => conflict.columns(['org_id', 'path']).doNothing())
    .execute();
  return row;
}

/** Withdraws a grant, named by the path given to grant-local or by its real path; false when there was none. */
export async function revokeLocal(db: Kysely<Database>, orgId: string, path: string): Promise<boolean> {
  const candidates = [...new Set([resolve(path), await realpath(path).catch(() => resolve(path))])];
  const result = await db.deleteFrom('local_grants').where('org_id', '=', orgId).where('path', 'in', candidates).executeTakeFirst();
  return result.numDeletedRows > 0n;
}

export function listLocalGrants(db: Kysely<Database>, orgId: string): Promise<LocalGrantRow[]> {
  return db.selectFrom('local_grants').selectAll().where('org_id', '=', orgId).orderBy('path').execute();
}

/** Lets the organization use the server-wide GITHUB_* and GITLAB_TOKEN credentials, or withdraws that. */
export async function setServerCredentials(db: Kysely<Database>, orgId: string, allowed: boolean): Promise<void> {
  await db
    .updateTable('organizations')
    .set({ server_credentials: allowed ? 1 : 0 })
    .where('id', '=', orgId)
    .execute();
}

/** Whether QUIRE_TRUST_FIRST_ORGANIZATION gives this organization the single-organization conveniences. */
export function isTrusted(organization: OrganizationRow, trustFirstOrganization: boolean): boolean {
  return trustFirstOrganization && organization.first_start === 1;
}
