import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkpointIntervalMs } from '../../src/storage/sqlite/checkpoints.ts';
import { openSqlite } from '../../src/storage/sqlite/connect.ts';
import type { SqliteReaders } from '../../src/storage/sqlite/readers.ts';
import type { Storage } from '../../src/storage/dialect.ts';

// Several rounds: the first one also starts the writing thread, which takes a few hundred milliseconds on a busy machine.
const settle = () => new Promise((resolve) => setTimeout(resolve, checkpointIntervalMs * 6));

/** Frames in the log now, read by another connection (its PASSIVE checkpoint copies what it can and counts the log). */
function logFrames(path: string): number {
  const other = new DatabaseSync(path);
  try {
    return (other.prepare('pragma wal_checkpoint(passive)').get() as { log: number }).log;
  } finally {
    other.close();
  }
}

async function autocheckpoint(storage: Storage): Promise<number> {
  const { rows } = await sql<{ wal_autocheckpoint: number }>`pragma wal_autocheckpoint`.execute(storage.db);
  return rows[0].wal_autocheckpoint;
}

/** 40 transactions of one 64 KiB row each: about 700 pages of log, under SQLite's own checkpoint threshold of 1,000. */
async function writeRows(storage: Storage, from: number): Promise<void> {
  for (let index = from; index < from + 40; index++)
    await storage.db.transaction().execute((trx) => sql`insert into blobs (id, data) values (${index}, randomblob(65536))`.execute(trx));
}

describe('SQLite log checkpoints on the writing thread', () => {
  let directory: string;
  let path: string;
  let storage: Storage;
  beforeAll(async () => {
    directory = mkdtempSync(join(tmpdir(), 'quire-checkpoints-'));
    path = join(directory, 'quire.db');
    storage = openSqlite({ path });
    await sql`create table blobs (id integer primary key, data blob)`.execute(storage.db);
  });
  afterAll(async () => {
    await storage.close();
    rmSync(directory, { recursive: true, force: true });
  });

  it('the serving connection leaves them to the writing thread, whose checkpoints let the log start over', async () => {
    expect(await autocheckpoint(storage)).toBe(0);
    await writeRows(storage, 0);
    await settle();
    // The next commit starts the log over: it holds only that commit's frames, not the 700 pages before.
    await writeRows(storage, 40);
    await settle();
    await storage.db.transaction().execute((trx) => sql`insert into blobs (id, data) values (1000, x'00')`.execute(trx));
    expect(logFrames(path)).toBeLessThan(10);
    const { rows } = await sql<{ count: number }>`select count(*) as count from blobs`.execute(storage.db);
    expect(rows[0].count).toBe(81);
  });

  it('go on past a read snapshot open on the writing thread’s connection: it is busy then, not stopped', async () => {
    const writing = openSqlite({ path, threads: false });
    try {
      const during = await writing.readSnapshot(() => writing.checkpointLog(50));
      expect(during).toEqual({ busy: true, logFrames: -1, checkpointedFrames: -1 });
      expect((await writing.checkpointLog(50))?.busy).toBe(false);
    } finally {
      await writing.close();
    }
  });

  it('give the serving connection its own checkpoints back once the writing thread is gone', async () => {
    await (storage.writer as SqliteReaders).close();
    await writeRows(storage, 2000);
    await settle();
    expect(await autocheckpoint(storage)).toBe(1000);
  });
});
