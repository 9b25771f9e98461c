/**
 * Visits: a visitor's views with no gap over 30 minutes. Ingestion decides per view whether it begins
 * a visit (`entry`) and the visit's source (the referring site of its first view, null for direct)
 * from the visitor's previous view, which this per-process state remembers for the last 30 minutes
 * of each project's views. A project's state is loaded from its raw events of the last 30 minutes on
 * first use, so a restart continues the visits in progress. Views of one visitor that reach several
 * processes at once, or arrive out of time order, may start a visit twice; `quire analytics rebuild`
 * recomputes visits exactly from the raw events (fold/rebuild-dimensions.ts).
 */
export const visitGapMs = 30 * 60_000;

/** A visitor's latest view as far as visits are concerned. */
export interface VisitState {
  lastAt: number;
  sourceId: number | null;
}

/** What a view is given. */
export interface VisitOutcome {
  entry: boolean;
  sourceId: number | null;
}

/** Continues or begins the visit of a view at `at` with referring site `referrerId`, updating `state`. */
export function nextVisit(previous: VisitState | undefined, at: number, referrerId: number | null): { outcome: VisitOutcome; state: VisitState } {
  if (previous !== undefined && Math.abs(at - previous.lastAt) <= visitGapMs) {
    return { outcome: { entry: false, sourceId: previous.sourceId }, state: { lastAt: Math.max(previous.lastAt, at), sourceId: previous.sourceId } };
  }
  return { outcome: { entry: true, sourceId: referrerId }, state: { lastAt: at, sourceId: referrerId } };
}

/** Per project, each recent visitor's state; pruned of visitors idle for more than a visit's gap behind the newest view. */
export class VisitTracker {
  readonly #projects = new Map<number, { visitors: Map<number, VisitState>; newest: number }>();

  loaded(projectKey: number): boolean {
    return this.#projects.has(projectKey);
  }

  /** Starts a project's state from the latest view of each visitor seen in its last 30 minutes (oldest first). */
  load(projectKey: number, recent: { visitorId: number; at: number; sourceId: number | null }[]): void {
    if (this.#projects.has(projectKey)) return;
    const visitors = new Map<number, VisitState>();
    let newest = 0;
    for (const view of recent) {
      visitors.set(view.visitorId, { lastAt: view.at, sourceId: view.sourceId });
      newest = Math.max(newest, view.at);
    }
    this.#projects.set(projectKey, { visitors, newest });
  }

  /** The visit of each view (in order), learning as it goes: views of one call continue one another's visits. */
  assign(projectKey: number, views: { visitorId: number; at: number; referrerId: number | null }[]): VisitOutcome[] {
    let project = this.#projects.get(projectKey);
    if (!project) this.#projects.set(projectKey, (project = { visitors: new Map(), newest: 0 }));
    const outcomes = views.map((view) => {
      const { outcome, state } = nextVisit(project.visitors.get(view.visitorId), view.at, view.referrerId);
      project.visitors.set(view.visitorId, state);
      if (view.at > project.newest) project.newest = view.at;
      return outcome;
    });
    if (project.visitors.size > 100_000) {
      for (const [visitor, state] of project.visitors) if (state.lastAt < project.newest - visitGapMs) project.visitors.delete(visitor);
    }
    return outcomes;
  }

  /** Forgets a project (after a rebuild rewrote its visits). */
  forget(projectKey: number): void {
    this.#projects.delete(projectKey);
  }
}
