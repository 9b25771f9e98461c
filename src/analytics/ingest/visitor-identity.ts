import type { Kysely } from 'kysely';
import { onWritingThread, type DialectProfile, type Storage } from '../../storage/dialect.ts';
import type { Database } from '../../storage/schema.ts';
import { insertVisitors, selectVisitors, type VisitorTable } from './bulk-statements.ts';
import { mergeThreshold, type VisitorLogCopy } from './visitor-log.ts';
import { reserve, type ReserveIds } from './dense-ids.ts';

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
