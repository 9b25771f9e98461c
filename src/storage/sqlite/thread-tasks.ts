/**
 * The task loop of a thread with its own connection (reader-thread.ts, writer-thread.ts): answers each task from
 * the parent with what the named function of the named module returns when called with `storage` and the task's
 * arguments; an error crosses back with its message and whether the database was unavailable. Once the thread has
 * had no task for a few seconds, its freed memory goes back to the system (lib/release-memory.ts).
 */
import { parentPort } from 'node:worker_threads';
import { DatabaseUnavailableError } from '../dialect.ts';
import { releaseWhenIdle } from '../../lib/release-memory.ts';
import type { ReadAnswer, ReadTask } from './readers.ts';

type TaskFunction<S> = (storage: S, ...args: unknown[]) => Promise<unknown>;

export function answerTasks<S>(storage: S): void {
  const port = parentPort!;
  const answer = async ({ id, module, name, args }: ReadTask) => {
    try {
      const exported = ((await import(module)) as Record<string, TaskFunction<S>>)[name];
      if (typeof exported !== 'function') throw new Error(`${module} exports no function ${name}`);
      port.postMessage({ id, value: await exported(storage, ...args) } satisfies ReadAnswer);
    } catch (error) {
      const unavailable = error instanceof DatabaseUnavailableError;
      port.postMessage({ id, error: { message: (error as Error).message, unavailable } } satisfies ReadAnswer);
    }
  };
  const during = releaseWhenIdle();
  port.on('message', (task: ReadTask) => during(() => answer(task)));
}
