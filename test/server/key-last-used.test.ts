import { execFileSync } from 'node:child_process';
import { closeSync, constants, openSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey } from '../../src/accounts/keys.ts';
import type { Storage } from '../../src/storage/dialect.ts';
import { createTenant, testApp, testContext, type Tenant } from '../support/app.ts';
import { testDatabases, type TestDatabase } from '../support/storage.ts';

const sqlite = testDatabases.find((database) => database.dialect === 'sqlite') as TestDatabase;

/**
 * Holds every thread of libuv's pool in `open()` of a FIFO nobody writes to: the pool is where SQLite's log flush
 * (storage/sqlite/wal-sync.ts) runs, so until `release`, no write can reach the disk, as on a disk busy with
 * others' writes. Network and SQLite's own statements do not use the pool.
 */
async function stallTheDisk(directory: string): Promise<{ release(): Promise<void> }> {
  const fifo = join(directory, 'stall');
  execFileSync('mkfifo', [fifo]);
  const threads = Number(process.env.UV_THREADPOOL_SIZE ?? 4);
  const readers: Promise<FileHandle>[] = Array.from({ length: threads }, () => open(fifo, constants.O_RDONLY));
  // Give the pool's threads a moment to take the opens (each blocks until a writer comes).
  await new Promise((resolve) => setTimeout(resolve, 100));
  return {
    async release() {
      // Each writer that opens lets a waiting open return. Opened here, on this thread: the pool has no thread to spare.
      const writers = readers.map(() => openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK));
      for (const handle of await Promise.all(readers)) await handle.close();
      for (const writer of writers) closeSync(writer);
    },
  };
}

describe('a key’s last use, on SQLite', () => {
  let storage: Storage & { location: { env: Record<string, string> } };
  let app: FastifyInstance;
  let tenant: Tenant;

  beforeAll(async () => {
    storage = (await sqlite.open()) as typeof storage;
    tenant = await createTenant(storage);
    app = await testApp(testContext(storage));
  });
  afterAll(async () => {
    await app?.close();
    await storage?.close();
  });

  it('is recorded without the request waiting for the disk', async () => {
    const { key, row } = await createKey(storage.db, tenant.orgId);
    const stall = await stallTheDisk(storage.location.env.QUIRE_DATA_DIR);
    let answered: number | 'timed out';
    try {
      // The key has never been used: this request records its first use, a write whose flush cannot run now.
      const request = app.inject({ method: 'GET', url: `/v2/agent/${tenant.project.id}/jobs`, headers: { authorization: `Bearer ${key}` } });
      answered = await Promise.race([
        request.then((response) => response.statusCode),
        new Promise<'timed out'>((resolve) => setTimeout(() => resolve('timed out'), 3000)),
      ]);
    } finally {
      await stall.release();
    }
    expect(answered).toBe(200);
    const stored = await storage.db.selectFrom('api_keys').select('last_used_at').where('id', '=', row.id).executeTakeFirstOrThrow();
    expect(stored.last_used_at).not.toBeNull();
  });

  it('is left alone by a request refused for a scope the key lacks', async () => {
    const { key, row } = await createKey(storage.db, tenant.orgId, { scopes: ['read'] });
    const refused = await app.inject({
      method: 'POST',
      url: `/v2/agent/${tenant.project.id}/job`,
      headers: { authorization: `Bearer ${key}` },
      payload: { prompt: 'x' },
    });
    expect(refused.statusCode).toBe(403);
    expect(refused.json().error).toMatch(/lacks the "write" scope/);
    const stored = await storage.db.selectFrom('api_keys').select('last_used_at').where('id', '=', row.id).executeTakeFirstOrThrow();
    expect(stored.last_used_at).toBeNull();
    expect((await app.inject({ method: 'GET', url: `/v2/agent/${tenant.project.id}/jobs`, headers: { authorization: `Bearer ${key}` } })).statusCode).toBe(200);
  });

  it('is left alone by a read of private docs refused for a key without the read scope', async () => {
    const { key, row } = await createKey(storage.db, tenant.orgId, { scopes: ['ingest'] });
    const refused = await app.inject({ method: 'GET', url: `/sites/${tenant.project.id}/llms.txt`, headers: { authorization: `Bearer ${key}` } });
    expect(refused.statusCode).toBe(403);
    expect(refused.json().error).toMatch(/lacks the "read" scope/);
    const stored = await storage.db.selectFrom('api_keys').select('last_used_at').where('id', '=', row.id).executeTakeFirstOrThrow();
    expect(stored.last_used_at).toBeNull();
  });
});
