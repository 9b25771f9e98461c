import type { Kysely } from 'kysely';
import type { Storage } from './dialect.ts';
import type { Database } from './schema.ts';

/** Runs `work` in a transaction whose statements all read one snapshot of the database. */
export function inSnapshot<T>(storage: Storage, work: (trx: Kysely<Database>) => Promise<T>): Promise<T> {
  const transaction = storage.db.transaction();
  const isolation = storage.profile.snapshotIsolation;
  return (isolation ? transaction.setIsolationLevel(isolation) : transaction).execute(work);
}
