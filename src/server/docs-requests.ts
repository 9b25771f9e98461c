import { enqueueBuild } from '../docs/index/queue/enqueue.ts';
import type { Storage } from '../storage/dialect.ts';

/**
 * Requests a build of a project's docs index from a process that runs no builder (the CLI, which
 * saves projects without a server's events). The request is a row in the database: the builder of a
 * running `quire serve` or `quire worker` finds it at its next idle poll (a second or so; at once on
 * PostgreSQL, which notifies it), and one started later finds it when it starts.
 */
export async function requestDocsBuild(storage: Storage, projectId: string): Promise<void> {
  await enqueueBuild(storage, projectId);
}
