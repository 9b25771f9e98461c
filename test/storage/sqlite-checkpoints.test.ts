import { mkdtempSync, openSync, readSync, closeSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import type { Storage } from '../../src/storage/dialect.ts';
import { openSqlite } from '../../src/storage/sqlite/connect.ts';

const directory = mkdtempSync(join(tmpdir(), 'quire-checkpoints-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

/**
 * Frames in the log and frames copied back into the database, from the WAL-index (the `-shm` file every connection
 * maps; https://www.sqlite.org/walformat.html): `mxFrame` at byte 16 of the header, `nBackfill` at byte 96.
 */
function logFrames(path: string): { frames: number; copied: number } {
  const header = Buffer.alloc(100);
  const file = openSync(`${path}-shm`, 'r');
  try {
    readSync(file, header, 0, 100, 0);
  } finally {
    closeSync(file);
  }
  return { frames: header.readUInt32LE(16), copied: header.readUInt32LE(96) };
}

/** About 4 MiB through the serving connection, in 40 commits: past SQLite's 1,000-page threshold for a checkpoint. */
async function writeMuch(storage: Storage): Promise<void> {
  await sql`create table if not exists filler (id integer primary key, body blob)`.execute(storage.db);
  for (let commit = 0; commit < 40; commit++)
    await storage.db.transaction().execute(async (trx) => {
      for (let row = 0; row < 25; row++) await sql`insert into filler (body) values (randomblob(4000))`.execute(trx);
    });
}

async function eventually(check: () => boolean, ms = 5000): Promise<boolean> {
  for (const started = Date.now(); Date.now() - started < ms; await new Promise((resolve) => setTimeout(resolve, 50))) if (check()) return true;
  return check();
}

describe('SQLite checkpoints', () => {
  it('are not run by the serving connection’s commits, but soon after by the writing thread', async () => {
    const path = join(directory, 'offloaded.db');
    // Checkpoints an hour after a commit: none comes from the writing thread while this writes.
    const storage = openSqlite({ path, checkpointIntervalMs: 3_600_000 });
    try {
      await writeMuch(storage);
      const written = logFrames(path);
      expect(written.frames).toBeGreaterThan(1000);
      expect(written.copied, 'the serving connection checkpointed inside a commit').toBe(0);
    } finally {
      await storage.close();
    }
    const soon = openSqlite({ path, checkpointIntervalMs: 100 });
    try {
      await writeMuch(soon);
      expect(await eventually(() => logFrames(path).copied > 0), 'the writing thread checkpoints after commits').toBe(true);
    } finally {
      await soon.close();
    }
  });

  it('are SQLite’s own, inside commits, on a connection without threads', async () => {
    const path = join(directory, 'plain.db');
    const storage = openSqlite({ path, threads: false });
    try {
      await writeMuch(storage);
      // SQLite checkpointed inside a commit past 1,000 pages, and the next commit started the log over.
      expect(logFrames(path).frames).toBeLessThan(1000);
    } finally {
      await storage.close();
    }
  });
});
