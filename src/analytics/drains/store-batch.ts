import { maxEventsPerRequest, storeVerified, type IngestProject, type IngestState } from '../ingest/ingest.ts';
import type { PreparedEvent } from '../model/prepared-event.ts';
import type { ReasonCounts } from '../capture/request-event.ts';

/** What a drain answers once its batch is stored. */
export interface DrainResult {
  /** Views stored now. */
  accepted: number;
  /** Records stored before (the host sent the batch again): not counted twice. */
  duplicates: number;
  /** Records that are not page views or could not be read; never the batch's failure. */
  skipped: number;
  reasons: Record<string, number>;
  /** Views kept with a change (an invalid client IP dropped, a path escaped), by reason. */
  notes: Record<string, number>;
}

/**
 * Checks the signatures of a batch's prepared events (prepare-batch.ts) and stores them through the
 * ingestion pipeline, a commit per 10,000 events. Resolves only when every part is committed; if a
 * later part fails, the host's retry finds the earlier parts by their keys and does not count them again.
 */
export async function storeBatch(
  analytics: IngestState,
  project: IngestProject,
  batch: { events: PreparedEvent[]; skipped: ReasonCounts; notes: ReasonCounts },
): Promise<DrainResult> {
  const result: DrainResult = { accepted: 0, duplicates: 0, skipped: 0, reasons: { ...batch.skipped }, notes: { ...batch.notes } };
  for (let start = 0; start < batch.events.length; start += maxEventsPerRequest) {
    const { stored, duplicates } = await storeVerified(analytics, project, batch.events.slice(start, start + maxEventsPerRequest));
    result.accepted += stored;
    result.duplicates += duplicates;
  }
  result.skipped = Object.values(result.reasons).reduce((sum, count) => sum + count, 0);
  return result;
}
