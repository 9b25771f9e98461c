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

  /**
   * The visit of each view, taken in `order` (time order), learning as it goes: views of one call continue
   * one another's visits. Writes each view's entry flag (1 when it begins a visit) and visit source into
   * `entry` and `sourceId`, by view index. A visitor's state is updated in place: this runs for every
   * ingested view, and fresh objects per view were a measurable part of ingestion's event loop.
   */
  assign(
    projectKey: number,
    order: ArrayLike<number>,
    views: { visitorOf: ArrayLike<number>; atOf: (index: number) => number; referrerOf: (number | null)[] },
    entry: Uint8Array,
    sourceId: (number | null)[],
  ): void {
    let project = this.#projects.get(projectKey);
    if (!project) this.#projects.set(projectKey, (project = { visitors: new Map(), newest: 0 }));
    const { visitors } = project;
    for (let position = 0; position < order.length; position++) {
      const index = order[position];
      const visitorId = views.visitorOf[index];
      const at = views.atOf(index);
      const previous = visitors.get(visitorId);
      if (previous !== undefined && Math.abs(at - previous.lastAt) <= visitGapMs) {
        if (at > previous.lastAt) previous.lastAt = at;
        entry[index] = 0;
        sourceId[index] = previous.sourceId;
      } else {
        const source = views.referrerOf[index];
        if (previous === undefined) visitors.set(visitorId, { lastAt: at, sourceId: source });
        else {
          previous.lastAt = at;
          previous.sourceId = source;
        }
        entry[index] = 1;
        sourceId[index] = source;
      }
      if (at > project.newest) project.newest = at;
    }
    if (visitors.size > 100_000) {
      for (const [visitor, state] of visitors) if (state.lastAt < project.newest - visitGapMs) visitors.delete(visitor);
    }
  }

  /** Forgets a project (after a rebuild rewrote its visits). */
  forget(projectKey: number): void {
    this.#projects.delete(projectKey);
  }
}
