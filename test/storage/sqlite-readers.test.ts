import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Storage } from '../../src/storage/dialect.ts';
import { openSqlite } from '../../src/storage/sqlite/connect.ts';
import { testDatabases } from '../support/storage.ts';

const tasks = new URL('./support/read-tasks.ts', import.meta.url);

async function addState(storage: Storage, projectId: string) {
  await storage.db
    .insertInto('docs_state')
    .values({ project_id: projectId, generation: 1, status: 'ready', pages: 0, sections: 0, started_generation: 1 })
    .execute();
}

describe('SQLite reading threads', () => {
  let storage: Storage;
  beforeAll(async () => {
    storage = await testDatabases.find((database) => database.dialect === 'sqlite')!.open();
  });
  afterAll(async () => {
    await storage.close();
  });

  it('read on connections of their own what was committed before the call, and only read', async () => {
    expect(storage.readers).not.toBeNull();
    await addState(storage, 'prj_read_a');
    expect(await storage.readers!.run(tasks, 'projectNames', ['prj_read_'])).toEqual(['prj_read_a']);
    await addState(storage, 'prj_read_b');
    const answers = await Promise.all(Array.from({ length: 8 }, () => storage.readers!.run<string[]>(tasks, 'projectNames', ['prj_read_'])));
    for (const answer of answers) expect(answer).toEqual(['prj_read_a', 'prj_read_b']);
    await expect(storage.readers!.run(tasks, 'write', [])).rejects.toThrow(/readonly/i);
    await expect(storage.readers!.run(tasks, 'missing', [])).rejects.toThrow(/exports no function missing/);
    expect(await storage.db.selectFrom('docs_state').select('project_id').execute()).toHaveLength(2);
  });

  it('are absent for an in-memory database, and refuse work once the database is closed', async () => {
    const memory = openSqlite({ path: ':memory:' });
    expect(memory.readers).toBeNull();
    await memory.close();
    const other = await testDatabases.find((database) => database.dialect === 'sqlite')!.open();
    const readers = other.readers!;
    await other.close();
    await expect(readers.run(tasks, 'projectNames', [''])).rejects.toThrow(/closed/);
  });
});
