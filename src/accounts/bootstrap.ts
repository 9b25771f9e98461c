import { sql } from 'kysely';
import type { Storage } from '../storage/dialect.ts';
import { createKey } from './keys.ts';
import { createOrganization } from './organizations.ts';
import { createProject } from './projects.ts';

export interface FirstRun {
  orgId: string;
  projectId: string;
  /** The admin key's secret; printed once by `quire serve`, stored nowhere. */
  key: string;
}

/**
 * On an empty database, creates the first organization, project and admin key in one transaction
 * (two servers starting at once cannot both do it). Returns null when the database has data already.
 */
export async function bootstrapIfEmpty({ db, profile }: Storage, defaults: { model?: string } = {}): Promise<FirstRun | null> {
  return db.transaction().execute(async (trx) => {
    if (profile.setupLock) await sql.raw(profile.setupLock).execute(trx);
    const existing = await trx.selectFrom('organizations').select('id').limit(1).executeTakeFirst();
    if (existing) return null;
    const organization = await createOrganization(trx, 'Default organization', { firstStart: true });
    const project = await createProject(trx, organization.id, { name: 'Documentation', model: defaults.model });
    const { key } = await createKey(trx, organization.id, { name: 'First admin key', scopes: ['read', 'write', 'ingest'] });
    return { orgId: organization.id, projectId: project.id, key };
  });
}
