import { EventEmitter } from 'node:events';

/** What ingestion and queries tell the background loop (fold/background.ts), by project key. */
export interface AnalyticsSignalMap {
  /** Events were committed: their pending batch can be folded into day sets soon. */
  'events-committed': [projectKey: number];
  /** A query found the project's range index missing or behind its day sets. */
  'index-stale': [projectKey: number];
}

export type AnalyticsSignals = EventEmitter<AnalyticsSignalMap>;

export function createAnalyticsSignals(): AnalyticsSignals {
  return new EventEmitter<AnalyticsSignalMap>();
}
