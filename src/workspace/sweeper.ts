import type { Logger } from 'pino';
import { runEvery } from '../lib/run-every.ts';
import { sweepWorkspaces } from './sweep.ts';

const sweepEveryMs = 60 * 60 * 1000;

/**
 * A worker process removes, at start and then hourly, the checkouts and leftover snapshots under `dataDir`
 * that processes which died left behind (see sweep.ts); `isActive` tells which jobs still own their
 * checkouts. Returns how to stop, waiting for a sweep under way.
 */
export function startWorkspaceSweeper(
  dataDir: string,
  isActive: (jobId: string) => Promise<boolean>,
  logger: Logger,
  options: { sessionLeaseMs?: number } = {},
): () => Promise<void> {
  const rounds = runEvery(
    sweepEveryMs,
    async () => {
      const removed = await sweepWorkspaces(dataDir, isActive, options);
      if (removed > 0) logger.info({ removed }, 'removed checkouts and snapshots that interrupted runs left behind');
    },
    (error) => logger.warn({ err: error }, 'could not remove checkouts of ended jobs or abandoned snapshots; trying again in an hour'),
  );
  return () => rounds.stop();
}
