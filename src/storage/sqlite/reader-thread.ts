/**
 * A reading thread (see readers.ts): opens its own read-only connection to the database file it is
 * given, and answers each task with what the named function of the named module returns when
 * called with that connection and the task's arguments.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { DatabaseUnavailableError, type ReadStorage } from '../dialect.ts';
import type { ReadAnswer, ReadTask } from './readers.ts';
import { openSqliteReader } from './reader.ts';

const storage = openSqliteReader((workerData as { path: string }).path);
const port = parentPort!;

type ReadFunction = (storage: ReadStorage, ...args: unknown[]) => Promise<unknown>;

port.on('message', async ({ id, module, name, args }: ReadTask) => {
  try {
    const exported = ((await import(module)) as Record<string, ReadFunction>)[name];
    if (typeof exported !== 'function') throw new Error(`${module} exports no function ${name}`);
    port.postMessage({ id, value: await exported(storage, ...args) } satisfies ReadAnswer);
  } catch (error) {
    const unavailable = error instanceof DatabaseUnavailableError;
    port.postMessage({ id, error: { message: (error as Error).message, unavailable } } satisfies ReadAnswer);
  }
});
