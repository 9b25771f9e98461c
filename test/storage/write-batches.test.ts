import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Storage } from '../../src/storage/dialect.ts';
import type { Database } from '../../src/storage/schema.ts';
import { batchedTransaction } from '../../src/storage/write-batches.ts';
import { testDatabases } from '../support/storage.ts';

describe.each(testDatabases)('batched write transactions on $dialect', (database) => {
  let storage: Storage;

  beforeAll(async () => {
    storage = await database.open();
  });
  afterAll(async () => {
    await storage.close();
  });

  const buckets = async (prefix: string) =>
    (await storage.db.selectFrom('rate_limit_buckets').select('bucket').where('bucket', 'like', `${prefix}%`).orderBy('bucket').execute()).map(
      (row) => row.bucket,
    );

  it('commits the works queued together in one transaction on SQLite (their own on PostgreSQL), each seeing the ones before it', async () => {
    const transactions: Kysely<Database>[] = [];
    const seen = await Promise.all(
      Array.from({ length: 5 }, (_, index) =>
        batchedTransaction(storage, async (trx) => {
          transactions.push(trx);
          const before = (await trx.selectFrom('rate_limit_buckets').select('bucket').where('bucket', 'like', 'together-%').execute()).length;
          await trx
            .insertInto('rate_limit_buckets')
            .values({ bucket: `together-${index}` })
            .execute();
          return before;
        }),
      ),
    );
    expect(await buckets('together-')).toEqual(['together-0', 'together-1', 'together-2', 'together-3', 'together-4']);
    if (database.dialect === 'sqlite') {
      expect(new Set(transactions).size).toBe(1);
      expect(seen).toEqual([0, 1, 2, 3, 4]);
    } else {
      expect(new Set(transactions).size).toBe(5);
    }
  });

  it('fails only the work that throws: its writes are rolled back, the others’ are stored', async () => {
    const results = await Promise.allSettled(
      ['kept-1', 'broken', 'kept-2'].map((name) =>
        batchedTransaction(storage, async (trx) => {
          await trx
            .insertInto('rate_limit_buckets')
            .values({ bucket: `fail-${name}` })
            .execute();
          if (name === 'broken') throw new Error('this work fails');
          return name;
        }),
      ),
    );
    expect(results.map((result) => (result.status === 'fulfilled' ? result.value : (result.reason as Error).message))).toEqual([
      'kept-1',
      'this work fails',
      'kept-2',
    ]);
    expect(await buckets('fail-')).toEqual(['fail-kept-1', 'fail-kept-2']);
  });
});
