import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { Kysely } from 'kysely';
import { newId, randomBase62 } from '../../lib/ids.ts';
import type { Database } from '../../storage/schema.ts';
import type { DashboardSessionRow } from '../../storage/tables/dashboard.ts';

const tokenLength = 43;

function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

export interface SignInLink {
  /** The secret part of the link; stored only as a hash. */
  token: string;
  expiresAt: Date;
}

/** The address of the sign-in page for a link token. */
export function signInUrl(baseUrl: string, token: string): string {
  return `${baseUrl.replace(/\/$/, '')}/dashboard/sign-in?token=${token}`;
}

/** A one-time sign-in link for the organization, valid for `minutes`. */
export async function createSignInLink(db: Kysely<Database>, orgId: string, minutes: number, now = Date.now()): Promise<SignInLink> {
  const token = randomBase62(tokenLength);
  const expiresAt = now + minutes * 60_000;
  // Expired links are useless; removing them here keeps the table small without a cleanup job.
  await db.deleteFrom('dashboard_sign_in_links').where('expires_at', '<=', now).execute();
  await db
    .insertInto('dashboard_sign_in_links')
    .values({ token_hash: hashToken(token), org_id: orgId, expires_at: expiresAt, used_at: null, created_at: now })
    .execute();
  return { token, expiresAt: new Date(expiresAt) };
}

export interface NewSession {
  /** The cookie value; stored only as a hash. */
  token: string;
  row: DashboardSessionRow;
}

/**
 * Redeems a sign-in link and opens a session for its organization. The link is marked used in the
 * same statement that checks it, so two requests racing with one link cannot both succeed.
 * Returns null when the link is unknown, used or expired.
 */
export async function redeemSignInLink(db: Kysely<Database>, linkToken: string, sessionHours: number, now = Date.now()): Promise<NewSession | null> {
  const tokenHash = hashToken(linkToken);
  return db.transaction().execute(async (trx) => {
    const claimed = await trx
      .updateTable('dashboard_sign_in_links')
      .set({ used_at: now })
      .where('token_hash', '=', tokenHash)
      .where('used_at', 'is', null)
      .where('expires_at', '>', now)
      .executeTakeFirst();
    if (claimed.numUpdatedRows === 0n) return null;
    const link = await trx.selectFrom('dashboard_sign_in_links').select('org_id').where('token_hash', '=', tokenHash).executeTakeFirstOrThrow();
    // A link is the operator's way in: its session belongs to no person and acts as an owner.
    return openSession(trx, link.org_id, null, sessionHours, now);
  });
}

/** Opens a session for a person (or, with null, for the holder of a sign-in link). */
export async function openSession(db: Kysely<Database>, orgId: string, personId: string | null, sessionHours: number, now = Date.now()): Promise<NewSession> {
  await db.deleteFrom('dashboard_sessions').where('expires_at', '<=', now).execute();
  const token = randomBase62(tokenLength);
  const row: DashboardSessionRow = {
    id: newId('ses'),
    token_hash: hashToken(token),
    org_id: orgId,
    expires_at: now + sessionHours * 3_600_000,
    created_at: now,
    last_seen_at: now,
    person_id: personId,
  };
  await db.insertInto('dashboard_sessions').values(row).execute();
  return { token, row };
}

/** Last use is recorded at most this often, so browsing does not write on every request. */
const lastSeenResolutionMs = 60_000;

/**
 * The live session a cookie value names, or undefined: one that has neither expired nor been idle
 * for `idleHours`. Using it moves its last-seen time on.
 */
export async function findSession(db: Kysely<Database>, token: string, idleHours: number, now = Date.now()): Promise<DashboardSessionRow | undefined> {
  if (!/^[0-9A-Za-z]+$/.test(token)) return undefined;
  const session = await db
    .selectFrom('dashboard_sessions')
    .selectAll()
    .where('token_hash', '=', hashToken(token))
    .where('expires_at', '>', now)
    .where((eb) => eb(eb.fn.coalesce('last_seen_at', 'created_at'), '>', now - idleHours * 3_600_000))
    .executeTakeFirst();
  if (session && now - (session.last_seen_at ?? session.created_at) >= lastSeenResolutionMs) {
    await db.updateTable('dashboard_sessions').set({ last_seen_at: now }).where('id', '=', session.id).execute();
  }
  return session;
}

export async function endSession(db: Kysely<Database>, sessionId: string): Promise<void> {
  await db.deleteFrom('dashboard_sessions').where('id', '=', sessionId).execute();
}

/**
 * Signs out everywhere: ends every session of the person, or, for a session opened by a sign-in
 * link, every link session of the organization. Returns how many ended.
 */
export async function endSessionsOf(db: Kysely<Database>, orgId: string, personId: string | null): Promise<number> {
  const query = db.deleteFrom('dashboard_sessions').where('org_id', '=', orgId);
  const result = await (personId === null ? query.where('person_id', 'is', null) : query.where('person_id', '=', personId)).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/**
 * The CSRF token of a session, derived from its secret cookie value: a page from another site
 * cannot read the cookie, so it cannot compute the token, and nothing extra needs storing.
 */
export function csrfToken(sessionToken: string): string {
  return createHmac('sha256', sessionToken).update('quire-dashboard-csrf').digest('base64url');
}

export function sameToken(expected: string, given: unknown): boolean {
  if (typeof given !== 'string') return false;
  const a = Buffer.from(expected);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}
