import type { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import type { RequestStore } from './recorder.ts';
import type { StoreReply, StoreWorkerData } from './store-worker.ts';
import { longLivedThreadLimits } from '../../lib/thread-memory.ts';
import { startThread } from '../../lib/threads.ts';

/**
 * A RequestStore backed by a worker thread (store-worker.ts). A worker that fails to start or exits
 * fails the pending writes (the recorder retries them) and is started again at the next write.
 * `prepare` starts it before the first write: its start (loading the ingestion modules, opening the
 * database) takes a second or more of CPU, which would otherwise compete with the first requests.
 */
export function workerStore(data: StoreWorkerData, logger: Logger): { store: RequestStore; prepare(): Promise<void>; close(): Promise<void> } {
  let worker: Worker | undefined;
  let ready: Promise<void> | undefined;
  let next = 0;
  const pending = new Map<number, { resolve: (reply: StoreReply) => void; reject: (error: Error) => void }>();

  const start = () => {
    const current = startThread(new URL('./store-worker.ts', import.meta.url), { workerData: data, resourceLimits: longLivedThreadLimits });
    worker = current;
    ready = new Promise<void>((resolve, reject) => {
      current.once('message', () => resolve());
      current.once('error', reject);
      current.once('exit', () => reject(new Error('the recording worker stopped before it was ready')));
    });
    current.on('message', (reply: StoreReply | { ready: true }) => {
      if (!('id' in reply)) return;
      pending.get(reply.id)?.resolve(reply);
      pending.delete(reply.id);
    });
    const fail = (error: Error) => {
      if (worker === current) worker = undefined;
      for (const waiter of pending.values()) waiter.reject(error);
      pending.clear();
    };
    current.on('error', (error) => {
      logger.warn({ error: error.message }, 'recording worker failed; it starts again at the next write');
      fail(error);
    });
    current.on('exit', () => fail(new Error('the recording worker stopped')));
    // Recording never keeps the process alive by itself.
    current.unref();
  };

  return {
    async prepare() {
      if (!worker) start();
      // Held while it starts, which nothing else may be waiting for yet; a thread that cannot start (the
      // database unavailable) is started again at the first write.
      const starting = worker!;
      starting.ref();
      await ready!.catch(() => {});
      starting.unref();
    },
    async store(batch) {
      if (!worker) start();
      await ready;
      const id = next++;
      const reply = await new Promise<StoreReply>((resolve, reject) => {
        pending.set(id, { resolve, reject });
        worker!.postMessage({ id, batch: batch.message() });
      });
      if ('error' in reply) throw new Error(reply.error);
      return reply;
    },
    async close() {
      await worker?.terminate();
      worker = undefined;
    },
  };
}
