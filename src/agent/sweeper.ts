import type { Logger } from 'pino';
import type { Storage } from '../storage/dialect.ts';
import { sweepWorkspaces } from '../workspace/sweep.ts';

const sweepEveryMs = 60 * 60 * 1000;

/**
 * A worker process removes, at start and then hourly, the checkouts under `dataDir` that jobs no
 * longer active left behind (see workspace/sweep.ts). Returns how to stop, waiting for a sweep
 * under way.
 */
export function startWorkspaceSweeper(storage: Storage, dataDir: string, logger: Logger): () => Promise<void> {
  const isActive = async (jobId: string) =>
    (await storage.db.selectFrom('jobs').select('status').where('id', '=', jobId).executeTakeFirst())?.status === 'active';
  let running: Promise<void> = Promise.resolve();
  const sweep = () => {
    running = running.then(async () => {
      try {
        const removed = await sweepWorkspaces(dataDir, isActive);
        if (removed > 0) logger.info({ removed }, 'removed checkouts that interrupted jobs left behind');
      } catch (error) {
        logger.warn({ err: error }, 'could not remove checkouts of ended jobs; trying again in an hour');
      }
    });
  };
  sweep();
  const timer = setInterval(sweep, sweepEveryMs).unref();
  return async () => {
    clearInterval(timer);
    await running;
  };
}
