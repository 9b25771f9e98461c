/** Functions tests run on the writing thread's own connection (Storage.writer). */
import type { Storage } from '../../../src/storage/dialect.ts';

/** Adds `count` docs states `prefix0`, `prefix1`, …, each in a transaction of its own. */
export async function addStates(storage: Storage, prefix: string, count: number): Promise<number> {
  for (let index = 0; index < count; index++)
    await storage.db.transaction().execute((trx) =>
      trx
        .insertInto('docs_state')
        .values({ project_id: `${prefix}${index}`, generation: 1, status: 'ready', pages: 0, sections: 0, started_generation: 1 })
        .execute(),
    );
  return count;
}

export async function fail(): Promise<never> {
  throw new Error('failed on the writing thread');
}

/** Keeps the writing thread busy for `milliseconds`, as a long fold or repair under a load does: its next tasks wait. */
export async function occupy(_storage: Storage, milliseconds: number): Promise<void> {
  const until = Date.now() + milliseconds;
  while (Date.now() < until);
}

/** Holds a write turn for `milliseconds`, in a transaction that has written a row, as a long move or fold does. */
export async function holdWriteTurn(storage: Storage, milliseconds: number): Promise<void> {
  await storage.db.transaction().execute(async (trx) => {
    await trx
      .insertInto('docs_state')
      .values({ project_id: 'prj_held_turn', generation: 1, status: 'ready', pages: 0, sections: 0, started_generation: 1 })
      .execute();
    const until = Date.now() + milliseconds;
    while (Date.now() < until);
  });
}
