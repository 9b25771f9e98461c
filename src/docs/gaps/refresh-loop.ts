import type { AppContext } from '../../http/context.ts';
import type { ProjectRow } from '../../storage/tables/accounts.ts';
import { evidenceMark } from './evidence.ts';
import { refreshGaps } from './service.ts';

/** How often the gaps of every project are stored and `gap.opened` sent for those that crossed the threshold. */
export const gapsRefreshMs = 60_000;

/**
 * Refreshes the gaps of every project (see `refreshGaps`) whose evidence changed since `marks` last saw
 * it: a refresh groups all of a project's recent evidence, which costs a second or more for a busy
 * project, and a project with nothing new would come out the same. A project that fails is logged, keeps
 * no mark (so the next round tries again), and the others go on.
 */
export async function refreshAllGaps(context: AppContext, marks = new Map<string, string>()): Promise<void> {
  const projects = (await context.storage.db.selectFrom('projects').selectAll().execute()) as ProjectRow[];
  for (const project of projects) {
    try {
      // Taken before the refresh: evidence arriving during it moves the mark, and the next round refreshes again.
      const mark = await evidenceMark(context.analytics, project.id);
      if (marks.get(project.id) === mark) continue;
      await refreshGaps(context, project);
      marks.set(project.id, mark);
    } catch (error) {
      marks.delete(project.id);
      context.logger.warn({ err: error, projectId: project.id }, 'could not refresh docs gaps');
    }
  }
}

/**
 * The "docs gaps" loop: gap ids are stored and `gap.opened` sent here, on the write side, so the gaps
 * list only reads. One refresh at a time; stop waits for the one under way.
 */
export function startGapsRefresh(context: AppContext, everyMs = gapsRefreshMs): { stop(): Promise<void> } {
  let running: Promise<void> | null = null;
  const marks = new Map<string, string>();
  // A refresh still under way when the next is due: that one is skipped, so refreshes never pile up.
  const tick = () => {
    running ??= refreshAllGaps(context, marks)
      .catch((error: unknown) => context.logger.warn({ err: error }, 'could not refresh docs gaps'))
      .finally(() => (running = null));
  };
  const timer = setInterval(tick, everyMs).unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
