/**
 * Shared links: a read-only link to a project's analytics page. The token (32 random URL-safe
 * characters, 192 bits) is shown once; only its SHA-256 is stored, so a database read does not hand
 * out working links. A revoked link stops working at the next request: every request looks it up.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import { ulid } from 'ulid';
import type { Database } from '../../storage/schema.ts';

export interface SharedLink {
  id: string;
  createdAt: string;
}

const hashOf = (token: string) => createHash('sha256').update(token).digest('hex');
/** What a token looks like; anything else is not looked up. */
const tokenPattern = /^[A-Za-z0-9_-]{32}$/;

export async function createSharedLink(db: Kysely<Database>, projectId: string, now = Date.now()): Promise<SharedLink & { token: string }> {
  const token = randomBytes(24).toString('base64url');
  const id = `shl_${ulid()}`;
  await db
    .insertInto('analytics_shared_links')
    .values({ id, project_id: projectId, token_hash: hashOf(token), created_at: now, revoked_at: null })
    .execute();
  return { id, token, createdAt: new Date(now).toISOString() };
}

/** A project's links that still work, newest first (without tokens: only their hashes are kept). */
export async function listSharedLinks(db: Kysely<Database>, projectId: string): Promise<SharedLink[]> {
  const rows = await db
    .selectFrom('analytics_shared_links')
    .select(['id', 'created_at'])
    .where('project_id', '=', projectId)
    .where('revoked_at', 'is', null)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
  return rows.map((row) => ({ id: row.id, createdAt: new Date(Number(row.created_at)).toISOString() }));
}

/** Revokes a link of this project; false when the project has no such working link. */
export async function revokeSharedLink(db: Kysely<Database>, projectId: string, id: string, now = Date.now()): Promise<boolean> {
  const result = await db
    .updateTable('analytics_shared_links')
    .set({ revoked_at: now })
    .where('id', '=', id)
    .where('project_id', '=', projectId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** The project a working token opens, or null (malformed, unknown or revoked). */
export async function sharedProject(db: Kysely<Database>, token: string): Promise<string | null> {
  if (!tokenPattern.test(token)) return null;
  const row = await db
    .selectFrom('analytics_shared_links')
    .select('project_id')
    .where('token_hash', '=', hashOf(token))
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return row?.project_id ?? null;
}
