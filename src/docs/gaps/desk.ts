import type { AppContext } from '../../http/context.ts';
import type { ProjectRow } from '../../storage/tables/accounts.ts';
import type { GapView } from './list.ts';
import { changeGapStatus, createGapJob, listGaps, type GapsQuery } from './service.ts';

/**
 * What other features (the dashboard) may do with a project's docs gaps, handed to them through the
 * process context so they need not import docs/: the list, a job from a gap, dismiss and reopen.
 */
export interface GapsDesk {
  list(context: AppContext, project: ProjectRow, query: GapsQuery): Promise<{ gaps: GapView[]; hasMore: boolean }>;
  createJob(context: AppContext, project: ProjectRow, gapId: string, range: { from: number; to: number }): Promise<{ id: string }>;
  changeStatus(context: AppContext, project: ProjectRow, gapId: string, status: 'open' | 'dismissed', range: { from: number; to: number }): Promise<GapView>;
}

export const gapsDesk: GapsDesk = { list: listGaps, createJob: createGapJob, changeStatus: changeGapStatus };

declare module '../../http/context.ts' {
  interface AppContext {
    /** Docs gaps for the dashboard (see docs/gaps/desk.ts). */
    gaps: GapsDesk;
  }
}
