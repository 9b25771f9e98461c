import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Storage } from '../../src/storage/dialect.ts';
import { openSqlite } from '../../src/storage/sqlite/connect.ts';
import { WriteTurns } from '../../src/storage/sqlite/write-turns.ts';
import { testDatabases } from '../support/storage.ts';

const tasks = new URL('./support/write-tasks.ts', import.meta.url);

describe('SQLite writing thread', () => {
  let storage: Storage;
  beforeAll(async () => {
    storage = await testDatabases.find((database) => database.dialect === 'sqlite')!.open();
  });
  afterAll(async () => {
    await storage.close();
  });

  it('writes on a connection of its own, taking turns with the serving connection, every commit kept', async () => {
    expect(storage.writer).not.toBeNull();
    const here = (async () => {
      for (let index = 0; index < 40; index++)
        await storage.db.transaction().execute((trx) =>
          trx
            .insertInto('docs_state')
            .values({ project_id: `prj_here_${index}`, generation: 1, status: 'ready', pages: 0, sections: 0, started_generation: 1 })
            .execute(),
        );
    })();
    const there = storage.writer!.run<number>(tasks, 'addStates', ['prj_there_', 40]);
    await Promise.all([here, there]);
    expect(await there).toBe(40);
    const rows = await storage.db.selectFrom('docs_state').select('project_id').where('project_id', 'like', 'prj_%').execute();
    expect(rows).toHaveLength(80);
    await expect(storage.writer!.run(tasks, 'fail', [])).rejects.toThrow(/failed on the writing thread/);
    await expect(storage.writer!.run(tasks, 'missing', [])).rejects.toThrow(/exports no function missing/);
  });

  it("takes a write turn for a write outside a transaction, so the event loop never sleeps in SQLite's busy handler", async () => {
    const held = storage.writer!.run(tasks, 'holdWriteTurn', [1_500]);
    // The writing thread is in its turn by now (its transaction started at once; the thread is warm).
    await new Promise((resolve) => setTimeout(resolve, 500));
    let longestGap = 0;
    let last = performance.now();
    const ticker = setInterval(() => {
      const now = performance.now();
      longestGap = Math.max(longestGap, now - last);
      last = now;
    }, 5);
    const started = performance.now();
    await storage.db
      .insertInto('docs_state')
      .values({ project_id: 'prj_outside_turn', generation: 1, status: 'ready', pages: 0, sections: 0, started_generation: 1 })
      .execute();
    const waited = performance.now() - started;
    clearInterval(ticker);
    await held;
    // It waited for the other connection's turn, while the event loop went on (timers every 5 ms).
    expect(waited).toBeGreaterThan(400);
    expect(longestGap).toBeLessThan(250);
    const rows = await storage.db.selectFrom('docs_state').select('project_id').where('project_id', 'in', ['prj_held_turn', 'prj_outside_turn']).execute();
    expect(rows).toHaveLength(2);
  });

  it('is absent for an in-memory database', async () => {
    const memory = openSqlite({ path: ':memory:' });
    expect(memory.writer).toBeNull();
    await memory.close();
  });
});

describe('write turns', () => {
  it('are taken in the order asked for, and all go on once stopped', async () => {
    const turns = new WriteTurns();
    const other = new WriteTurns(turns.buffer);
    const order: string[] = [];
    await turns.take();
    const second = other.take().then(() => order.push('second'));
    const third = turns.take().then(() => order.push('third'));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(order).toEqual([]);
    turns.give();
    await second;
    expect(order).toEqual(['second']);
    other.give();
    await third;
    expect(order).toEqual(['second', 'third']);
    // The holder never gives its turn back (a thread that failed in it): stopping lets everyone on.
    const stuck = other.take();
    turns.stop();
    await stuck;
    await turns.take();
  });
});
