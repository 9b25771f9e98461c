import { randomUUID } from 'node:crypto';
import { VisitorStates } from './visitor-states.ts';

/**
 * Visits: a visitor's views with no gap over 30 minutes. Ingestion guesses per view whether it begins
 * a visit (`entry`) and the visit's source (the referring site of its first view, null for direct)
 * from the visitor's previous view, which this per-process state remembers, and marks the views it
 * cannot be sure of as doubtful: the fold recomputes those visitors' visits from the raw events
 * (fold/visit-repair.ts), so answers are exact whatever order views arrive in.
 *
 * A guess is sure when the process has seen every view of the visitor that could matter: the view is
 * not older than the visitor's latest one, the visit it continues was sure, and the time before it is
 * remembered (not before the newest stored view when the project was loaded, nor before what pruning
 * forgot). Another process's writes make a whole batch doubtful: each commit reads which tracker
 * stored the project's previous batch (`analytics_projects.visit_writer`, see `committed`).
 */
export const visitGapMs = 30 * 60_000;

/** Visitors remembered per project before those idle for `rememberMs` behind the newest view are dropped. */
const maxVisitors = 100_000;
/** Views this far behind the newest one, of visitors pruning forgot, are still sure: concurrent senders lag that little. */
const rememberMs = 4 * visitGapMs;
/** After another process wrote the project, its visits are loaded again from the raw events at most this often. */
const reloadMs = 10_000;

interface ProjectVisits {
  /** Each visitor's latest view as far as visits are concerned: its time, its visit's source, and whether that visit was decided for sure. */
  visitors: VisitorStates;
  newest: number;
  /** A visitor not in `visitors` has no view within a gap before a view at or after this time. */
  certainFrom: number;
  /** Changes whenever what this process remembers may miss views (another process wrote the project). */
  epoch: number;
  /** False from another process's commit until the next load: every view is doubtful meanwhile. */
  inSync: boolean;
  loadedAt: number;
}

/** Per project, each recent visitor's state. */
export class VisitTracker {
  /** Names this tracker in `analytics_projects.visit_writer`. */
  readonly writer = randomUUID();
  readonly #projects = new Map<number, ProjectVisits>();
  #epochs = 0;

  /** Whether the project's visits must be loaded (first use, or out of sync for long enough). */
  needsLoad(projectKey: number, now: number): boolean {
    const project = this.#projects.get(projectKey);
    return project === undefined || (!project.inSync && now - project.loadedAt >= reloadMs);
  }

  /**
   * Starts a project's state from the views of the last 30 minutes before its newest stored view
   * (`newestStored`, null when it has none), oldest first. Their visits may still await a repair, so
   * views continuing them are doubtful.
   */
  load(projectKey: number, recent: { visitorId: number; at: number; sourceId: number | null }[], newestStored: number | null, now: number): void {
    const visitors = new VisitorStates();
    let newest = newestStored ?? 0;
    for (const view of recent) {
      const slot = visitors.find(view.visitorId);
      if (slot === -1) visitors.add(view.visitorId, view.at, view.sourceId, false);
      else if (view.at >= visitors.lastAt(slot)) visitors.set(slot, view.at, view.sourceId, false);
      newest = Math.max(newest, view.at);
    }
    this.#projects.set(projectKey, {
      visitors,
      newest,
      certainFrom: newestStored ?? -Infinity,
      epoch: ++this.#epochs,
      inSync: true,
      loadedAt: now,
    });
  }

  /**
   * The visit of each view, taken in `order` (time order), learning as it goes: views of one call continue
   * one another's visits. Writes each view's entry flag (1 when it begins a visit), visit source and
   * whether the guess is doubtful into `entry`, `sourceId` and `doubtful`, by view index; returns the
   * epoch to hand to `committed`. A visitor's state is updated in place (visitor-states.ts): this runs for every
   * ingested view.
   */
  assign(
    projectKey: number,
    order: ArrayLike<number>,
    views: { visitorOf: ArrayLike<number>; atOf: (index: number) => number; referrerOf: (number | null)[] },
    entry: Uint8Array,
    sourceId: (number | null)[],
    doubtful: Uint8Array,
  ): number {
    const project = this.#projects.get(projectKey);
    if (!project) throw new Error(`visits of project ${projectKey} are not loaded`);
    const { visitors, inSync } = project;
    for (let position = 0; position < order.length; position++) {
      const index = order[position];
      const visitorId = views.visitorOf[index];
      const at = views.atOf(index);
      const previous = visitors.find(visitorId);
      if (previous === -1) {
        const source = views.referrerOf[index];
        const sure = inSync && at >= project.certainFrom;
        visitors.add(visitorId, at, source, sure);
        entry[index] = 1;
        sourceId[index] = source;
        doubtful[index] = sure ? 0 : 1;
      } else if (at >= visitors.lastAt(previous)) {
        if (at - visitors.lastAt(previous) <= visitGapMs) {
          entry[index] = 0;
          sourceId[index] = visitors.source(previous);
          doubtful[index] = inSync && visitors.certain(previous) ? 0 : 1;
          visitors.setLastAt(previous, at);
        } else {
          const source = views.referrerOf[index];
          const sure = inSync && at >= project.certainFrom;
          visitors.set(previous, at, source, sure);
          entry[index] = 1;
          sourceId[index] = source;
          doubtful[index] = sure ? 0 : 1;
        }
      } else {
        // Older than a view already seen: it may start, join or split visits. A guess, and the visit it lands in is no longer sure.
        const joins = visitors.lastAt(previous) - at <= visitGapMs;
        entry[index] = joins ? 0 : 1;
        sourceId[index] = joins ? visitors.source(previous) : views.referrerOf[index];
        doubtful[index] = 1;
        visitors.setUncertain(previous);
      }
      if (at > project.newest) project.newest = at;
    }
    if (visitors.size > maxVisitors) {
      const cut = project.newest - rememberMs;
      visitors.dropBefore(cut);
      // A forgotten visitor's last view is before `cut`: a view a gap after it or later starts a visit for sure.
      project.certainFrom = Math.max(project.certainFrom, cut + visitGapMs);
    }
    return project.epoch;
  }

  /**
   * Called inside the committing transaction with the tracker that stored the project's previous batch:
   * whether this batch, assigned in `epoch`, is doubtful as a whole (another process wrote the project
   * since this one last did, or since the batch was assigned).
   */
  committed(projectKey: number, epoch: number, previousWriter: string | null): boolean {
    const project = this.#projects.get(projectKey);
    const foreign = previousWriter !== null && previousWriter !== this.writer;
    if (foreign && project) {
      project.inSync = false;
      project.epoch = ++this.#epochs;
      return true;
    }
    return project === undefined || project.epoch !== epoch;
  }

  /** Forgets a project (after a rebuild rewrote its visits). */
  forget(projectKey: number): void {
    this.#projects.delete(projectKey);
  }
}
