import { closeSync, openSync, readSync } from 'node:fs';
import { endianness } from 'node:os';
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Storage } from '../../src/storage/dialect.ts';
import { checkpointFrames, fallbackFrames, WalFrames } from '../../src/storage/sqlite/checkpoints.ts';
import { testDatabases, type TestLocation } from '../support/storage.ts';

const tasks = new URL('./support/write-tasks.ts', import.meta.url);

/** Pages of a transaction below: 100 rows of about 2 kB, two to a 4 kB page, and their index. */
const rowsPerTransaction = 100;

/**
 * Frames of the log the last checkpoint copied into the database (`nBackfill`, in the checkpoint information after
 * the two copies of the WAL-index header: https://www.sqlite.org/walformat.html).
 */
function backfilled(path: string): number {
  const bytes = Buffer.alloc(4);
  const descriptor = openSync(`${path}-shm`, 'r');
  try {
    readSync(descriptor, bytes, 0, 4, 96);
  } finally {
    closeSync(descriptor);
  }
  return endianness() === 'LE' ? bytes.readUInt32LE(0) : bytes.readUInt32BE(0);
}

interface Written {
  /** The most frames the log held after a transaction. */
  most: number;
  /** Whether the log was rewound to its start (a checkpoint had copied all of it). */
  rewound: boolean;
  /** Whether frames were copied while the log was below the serving connection's own bound: a checkpoint it did not run. */
  copiedElsewhere: boolean;
}

/** Writes `transactions` transactions on the serving connection, watching the log after each. */
async function write(storage: Storage & { location: TestLocation }, prefix: string, transactions: number): Promise<Written> {
  const path = `${storage.location.env.QUIRE_DATA_DIR}/quire.db`;
  const frames = new WalFrames(path);
  let most = 0;
  let rewound = false;
  let copiedElsewhere = false;
  let last = frames.read();
  try {
    for (let transaction = 0; transaction < transactions; transaction++) {
      await storage.db.transaction().execute((trx) =>
        trx
          .insertInto('organizations')
          .values(
            Array.from({ length: rowsPerTransaction }, (_, row) => ({
              id: `${prefix}_${transaction}_${row}`,
              name: 'x'.repeat(2000),
              first_start: 0,
              server_credentials: 0,
              created_at: Date.now(),
            })),
          )
          .execute(),
      );
      const now = frames.read();
      most = Math.max(most, now);
      copiedElsewhere ||= now < fallbackFrames && backfilled(path) > 0;
      rewound ||= now < last;
      last = now;
    }
  } finally {
    frames.close();
  }
  return { most, rewound, copiedElsewhere };
}

const autoCheckpoint = async (storage: Storage) =>
  (await sql<{ wal_autocheckpoint: number }>`pragma wal_autocheckpoint`.execute(storage.db)).rows[0]!.wal_autocheckpoint;

describe('SQLite checkpoints', () => {
  let storage: Storage & { location: TestLocation };
  beforeEach(async () => {
    storage = await testDatabases.find((database) => database.dialect === 'sqlite')!.open();
  });
  afterEach(async () => {
    await storage.close();
  });

  it('are run by the writing thread, the log staying bounded', async () => {
    expect(await autoCheckpoint(storage)).toBe(fallbackFrames);
    // About 60 frames a transaction: 30,000 frames in all, many times either bound.
    const { most, rewound, copiedElsewhere } = await write(storage, 'org_thread', 500);
    expect(copiedElsewhere).toBe(true);
    expect(rewound).toBe(true);
    // A checkpoint that has not caught up with the writer cannot rewind the log: the serving connection's own, at
    // its bound, copies what is left.
    expect(most).toBeLessThan(fallbackFrames + 200);
    expect(
      await storage.db
        .selectFrom('organizations')
        .select((eb) => eb.fn.countAll<number>().as('count'))
        .where('id', 'like', 'org_thread_%')
        .executeTakeFirstOrThrow(),
    ).toEqual({ count: 500 * rowsPerTransaction });
  });

  it('keep the log bounded without the writing thread, the serving connection checkpointing as SQLite does by default', async () => {
    await expect(storage.writer!.run(tasks, 'exitThread', [])).rejects.toThrow();
    expect(await autoCheckpoint(storage)).toBe(checkpointFrames);
    const { most, rewound } = await write(storage, 'org_alone', 500);
    expect(rewound).toBe(true);
    expect(most).toBeLessThan(checkpointFrames + 200);
  });
});
