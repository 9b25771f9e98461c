import { hash } from 'node:crypto';
import type { Kysely } from 'kysely';
import { onWritingThread, type DialectProfile, type Storage } from '../../storage/dialect.ts';
import type { Database } from '../../storage/schema.ts';
import { insertVisitors, selectVisitors, type VisitorTable } from './bulk-statements.ts';
import { mergeThreshold, type VisitorLogCopy } from './visitor-log.ts';
import { reserve, type ReserveIds } from './dense-ids.ts';
import type { VisitorKey } from '../model/prepared-event.ts';

/** HMAC-SHA-256's two padded keys of a secret (RFC 2104 §2): the inner one ready to prefix a message, the outer one with room for the inner digest. */
interface HmacPads {
  inner: Buffer;
  outer: Buffer;
}

/** Pads by secret: one per project hashed in this thread (bounded, in case of very many). */
const padsBySecret = new Map<string, HmacPads>();
/** The inner pad and the message, written in place for each hash (hashing is synchronous, so one buffer serves all). */
let scratch = Buffer.allocUnsafe(4096);

function padsOf(secret: string): HmacPads {
  let pads = padsBySecret.get(secret);
  if (pads !== undefined) return pads;
  let key = Buffer.from(secret, 'utf8');
  if (key.length > 64) key = hash('sha256', key, 'buffer');
  pads = { inner: Buffer.alloc(64, 0x36), outer: Buffer.alloc(64 + 32, 0x5c) };
  for (let index = 0; index < key.length; index++) {
    pads.inner[index] ^= key[index];
    pads.outer[index] ^= key[index];
  }
  if (padsBySecret.size >= 1_000) padsBySecret.clear();
  padsBySecret.set(secret, pads);
  return pads;
}

/**
 * HMAC-SHA-256 as two one-shot digests over the secret's padded keys, computed once per secret:
 * the same value as `createHmac('sha256', secret)`, without an Hmac object and its key import per
 * message (about a fifth of a visitor hash's time, which an import pays for nearly every line). The
 * inner digest comes back as a Latin-1 string written into the outer pad: asked for as a Buffer, the
 * digest cost 1.5 µs of allocation against 0.3 µs as a string, and a hash went from 2.1 µs to 0.85 µs (one run).
 */
function hmacSha256(secret: string, message: string): string {
  const { inner, outer } = padsOf(secret);
  const most = 64 + message.length * 3;
  if (scratch.length < most) scratch = Buffer.allocUnsafe(most);
  inner.copy(scratch, 0);
  const length = 64 + scratch.write(message, 64, 'utf8');
  outer.write(hash('sha256', scratch.subarray(0, length), 'binary'), 64, 'latin1');
  return hash('sha256', outer, 'base64url');
}

/**
 * The key a visitor is counted by: an HMAC with the project's secret, so the stored value reveals
 * neither the IP address nor the tracker's id, and the same person has unrelated keys in two projects.
 * The tracker's random id wins when present; otherwise the IP address and user agent identify a visitor.
 */
export function visitorHash(secret: string, event: VisitorKey): string {
  const message = event.visitorId !== undefined ? `id\n${event.visitorId}` : `ip\n${event.ip ?? ''}\n${event.userAgent ?? ''}`;
  // 128 bits: collisions among billions of visitors stay improbable, and the key stays short.
  return hmacSha256(secret, message).slice(0, 22);
}

/**
 * A short in-memory name for the same visitor key, with the user agent replaced by its dense id: the
 * visitors of a call that the identity cache (identity-cache.ts) does not hold are hashed once each.
 */
export function identityKey(event: VisitorKey, agentId: number): string {
  return event.visitorId !== undefined ? `i${event.visitorId}` : `a${agentId} ${event.ip ?? ''}`;
}

/**
 * Where a commit logs whole pages (SQLite), inserting new visitors at random places of the large
 * visitor index costs about a page each. There they are appended to a log (visitor-log.ts) instead,
 * moved over in bulk by `mergeRecentVisitors`; such writers take turns, so looking in both is exact.
 * PostgreSQL logs rows, not pages, and inserts into the index directly.
 */
const logFirst = (profile: DialectProfile) => profile.logsWholePages;

/**
 * Visitor ids of visitor hashes, assigning new dense ids inside `trx` (reserved through `reserveIds`);
 * also returns how many were new. Concurrent writers may both reserve ids for one hash: the unique
 * key keeps the first, the other's reservation is a harmless gap. With `allNew` (the caller knows no
 * hash is stored: see storeCalls), they are not looked up first. `log` is this process's copy of the
 * visitor log (the dictionary's), used where new visitors go there first.
 */
export async function visitorIds(
  trx: Kysely<Database>,
  profile: DialectProfile,
  log: VisitorLogCopy,
  key: number,
  hashes: string[],
  reserveIds: ReserveIds = (counter, count) => reserve(trx, key, counter, count),
  allNew = false,
): Promise<{ ids: Map<string, number>; fresh: number }> {
  const ids = new Map<string, number>();
  const target: VisitorTable = logFirst(profile) ? 'analytics_visitor_log' : 'analytics_visitors';
  if (!allNew) {
    if (target === 'analytics_visitor_log') await log.find(trx, key, hashes, ids);
    const missing = hashes.filter((hash) => !ids.has(hash));
    for (const row of await selectVisitors(trx, profile, key, missing)) ids.set(row.visitor_hash, Number(row.visitor_id));
  }
  // Sorted: writers side by side insert in one order, so neither waits on a row the other waits for.
  const fresh = hashes.filter((hash) => !ids.has(hash)).sort();
  if (fresh.length === 0) return { ids, fresh: 0 };
  const first = await reserveIds('next_visitor', fresh.length);
  const rows = fresh.map((hash, index) => ({ visitor_hash: hash, visitor_id: first + index }));
  if (target === 'analytics_visitor_log') {
    // Writers take turns here and looked in the log and the index first: every row is inserted.
    await log.append(trx, key, rows, () => insertVisitors(trx, profile, target, key, rows));
    for (const row of rows) ids.set(row.visitor_hash, row.visitor_id);
    return { ids, fresh: fresh.length };
  }
  for (const row of await insertVisitors(trx, profile, target, key, rows)) ids.set(row.visitor_hash, Number(row.visitor_id));
  // A hash another writer stored meanwhile (PostgreSQL, side by side) was not inserted: its id is the stored one.
  const taken = fresh.filter((hash) => !ids.has(hash));
  for (const row of await selectVisitors(trx, profile, key, taken)) ids.set(row.visitor_hash, Number(row.visitor_id));
  return { ids, fresh: fresh.length };
}

/** Whether `added` new visitors since the last merge call for one (only where they go to the log first). */
export function recentMergeDue(profile: DialectProfile, added: number, threshold = mergeThreshold): boolean {
  return logFirst(profile) && added >= threshold;
}

/**
 * `mergeRecentVisitors` beside the event loop where the storage has a writing thread (SQLite): the merge
 * inserts 200,000 rows into the large index, 130 to 300 ms a time, longer as the index grows, in a load of
 * 1,000,000 visitors. The event loop need not wait for it: lookups read the log (through their copy) and
 * the index in one write turn, and writers take turns. Resolves to whether it merged.
 */
export function mergeRecentVisitorsBeside(storage: Storage, added: number): Promise<boolean> {
  return onWritingThread(storage, new URL(import.meta.url), mergeRecentVisitors, added);
}

/** Moves the logged visitors into the visitor index once `added` reaches `threshold`; returns whether it did. */
export async function mergeRecentVisitors(storage: Storage, added: number, threshold = mergeThreshold): Promise<boolean> {
  if (!recentMergeDue(storage.profile, added, threshold)) return false;
  await storage.db.transaction().execute(async (trx) => {
    await trx
      .insertInto('analytics_visitors')
      .columns(['project_key', 'visitor_hash', 'visitor_id'])
      .expression(trx.selectFrom('analytics_visitor_log').select(['project_key', 'visitor_hash', 'visitor_id']).orderBy('project_key').orderBy('visitor_hash'))
      .execute();
    await trx.deleteFrom('analytics_visitor_log').execute();
  });
  return true;
}
