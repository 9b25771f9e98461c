/**
 * The writing thread (Storage.writer, started in connect.ts as a `SqliteReaders` of one thread): opens its own connection to the database file it is given, taking
 * write turns with the serving thread's connection through the shared `turns`, and answers each task
 * with what the named function of the named module returns when called with that connection's storage
 * and the task's arguments.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { DatabaseUnavailableError, type Storage } from '../dialect.ts';
import type { ReadAnswer, ReadTask } from './readers.ts';
import { openSqlite } from './connect.ts';

const { path, turns } = workerData as { path: string; turns: SharedArrayBuffer };
const storage = openSqlite({ path, turns, threads: false });
const port = parentPort!;

type WriteFunction = (storage: Storage, ...args: unknown[]) => Promise<unknown>;

port.on('message', async ({ id, module, name, args }: ReadTask) => {
  try {
    const exported = ((await import(module)) as Record<string, WriteFunction>)[name];
    if (typeof exported !== 'function') throw new Error(`${module} exports no function ${name}`);
    port.postMessage({ id, value: await exported(storage, ...args) } satisfies ReadAnswer);
  } catch (error) {
    const unavailable = error instanceof DatabaseUnavailableError;
    port.postMessage({ id, error: { message: (error as Error).message, unavailable } } satisfies ReadAnswer);
  }
});
