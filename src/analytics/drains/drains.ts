import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { SecretBox } from '../../accounts/secrets.ts';
import type { Database } from '../../storage/schema.ts';
import type { AnalyticsDrainRow } from '../../storage/tables/analytics.ts';

/** The hosts a drain can take batches from; `ndjson` is any sender of the events API's event shape. */
export const drainKinds = ['vercel', 'cloudflare', 'netlify', 'ndjson'] as const;
export type DrainKind = (typeof drainKinds)[number];

/** A drain as the API shows it; `secret` only in the answer that created it. */
export interface Drain {
  id: string;
  kind: DrainKind;
  name: string | null;
  url: string;
  createdAt: string;
  secret?: string;
}

/** The drain's receiving path: what the host is given as its destination (after the server's address). */
export const drainPath = (projectId: string, drainId: string) => `/v1/analytics/${projectId}/drains/${drainId}`;

export function drainOf(row: AnalyticsDrainRow, baseUrl: string): Drain {
  return {
    id: row.id,
    kind: row.kind as DrainKind,
    name: row.name,
    url: baseUrl + drainPath(row.project_id, row.id),
    createdAt: new Date(Number(row.created_at)).toISOString(),
  };
}

export interface NewDrain {
  kind: DrainKind;
  name?: string;
  verifyToken?: string;
}

/** Creates a drain with a fresh secret (returned once, stored sealed). */
export async function createDrain(
  db: Kysely<Database>,
  box: SecretBox,
  projectId: string,
  input: NewDrain,
): Promise<{ row: AnalyticsDrainRow; secret: string }> {
  // 32 random bytes: base64url keeps it safe in a URL query (`?secret=`) and in a header.
  const secret = `qds_${randomBytes(32).toString('base64url')}`;
  const row: AnalyticsDrainRow = {
    id: `drn_${randomBytes(12).toString('base64url')}`,
    project_id: projectId,
    kind: input.kind,
    name: input.name ?? null,
    secret: box.seal(secret),
    verify_token: input.verifyToken ?? null,
    created_at: Date.now(),
  };
  await db.insertInto('analytics_drains').values(row).execute();
  return { row, secret };
}

export async function listDrains(db: Kysely<Database>, projectId: string): Promise<AnalyticsDrainRow[]> {
  return db.selectFrom('analytics_drains').selectAll().where('project_id', '=', projectId).orderBy('created_at').orderBy('id').execute();
}

/** The drain, when it belongs to the project (another project's drain id finds nothing). */
export async function findDrain(db: Kysely<Database>, projectId: string, drainId: string): Promise<AnalyticsDrainRow | undefined> {
  return db.selectFrom('analytics_drains').selectAll().where('id', '=', drainId).where('project_id', '=', projectId).executeTakeFirst();
}

/** Deletes the project's drain; false when it has none of that id. */
export async function deleteDrain(db: Kysely<Database>, projectId: string, drainId: string): Promise<boolean> {
  const result = await db.deleteFrom('analytics_drains').where('id', '=', drainId).where('project_id', '=', projectId).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** Re-seals a secret opened with QUIRE_SECRET_KEY_PREVIOUS under the current key, so a key rotation reaches drains too. */
export async function resealDrainSecret(db: Kysely<Database>, box: SecretBox, row: AnalyticsDrainRow, secret: string): Promise<void> {
  if (box.isCurrent(row.secret)) return;
  await db
    .updateTable('analytics_drains')
    .set({ secret: box.seal(secret) })
    .where('id', '=', row.id)
    .execute();
}
