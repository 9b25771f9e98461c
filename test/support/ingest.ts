import { prepareAll, storeVerified, type IngestProject, type IngestResult, type IngestState } from '../../src/analytics/ingest/ingest.ts';

/** Validates raw events and stores them as one API call does (without its parse threads): what tests feed events through. */
export async function ingest(state: IngestState, project: IngestProject, inputs: unknown[]): Promise<IngestResult> {
  const { events, errors } = prepareAll(inputs);
  const { stored, duplicates } = await storeVerified(state, project, events);
  return { accepted: stored, rejected: errors.length, errors, duplicates };
}
