import { projectKey } from '../ingest/dense-ids.ts';
import { ingest, type EventError, type IngestProject, type IngestResult, type IngestState } from '../ingest/ingest.ts';
import { storeFeedback } from './feedback-store.ts';
import { storeSearches } from './search-store.ts';
import { prepareInteraction, type PreparedFeedback, type PreparedInteraction, type PreparedSearch } from './validate.ts';

/** Feedback and search events carry a `kind`; page views do not. */
export function hasKind(input: unknown): input is Record<string, unknown> {
  return typeof input === 'object' && input !== null && !Array.isArray(input) && Object.hasOwn(input, 'kind');
}

/**
 * Stores checked feedback and search events in one transaction; resolves once it has committed. The
 * rows written are then counted towards analyzing the tables (storage/statistics.ts).
 */
export async function storeInteractions(state: IngestState, project: IngestProject, events: PreparedInteraction[]): Promise<void> {
  if (events.length === 0) return;
  const key = await projectKey(state.storage.db, state.ids, project.id);
  const written = await state.storage.db.transaction().execute(async (trx) => ({
    ...(await storeFeedback(
      trx,
      key,
      events.filter((event): event is PreparedFeedback => event.kind === 'feedback'),
    )),
    ...(await storeSearches(
      trx,
      key,
      events.filter((event): event is PreparedSearch => event.kind === 'search'),
    )),
  }));
  state.statistics.wrote(written);
}

/**
 * The events API's pipeline: events with a `kind` are taken out here, before anything else looks at
 * them, and stored by this module; the page views go through `ingest` untouched, and their error
 * indexes are mapped back to positions in the request. A request of views only is handed on as it is.
 */
export async function ingestEvents(state: IngestState, project: IngestProject, inputs: unknown[], now = Date.now()): Promise<IngestResult> {
  if (!inputs.some(hasKind)) return ingest(state, project, inputs);
  const views: unknown[] = [];
  const viewIndexes: number[] = [];
  const interactions: PreparedInteraction[] = [];
  const errors: EventError[] = [];
  inputs.forEach((input, index) => {
    if (!hasKind(input)) {
      views.push(input);
      viewIndexes.push(index);
      return;
    }
    try {
      interactions.push(prepareInteraction(input, now));
    } catch (error) {
      errors.push({ index, message: (error as Error).message });
    }
  });
  const viewed = views.length > 0 ? await ingest(state, project, views) : { accepted: 0, rejected: 0, errors: [], duplicates: 0 };
  await storeInteractions(state, project, interactions);
  for (const error of viewed.errors) errors.push({ index: viewIndexes[error.index], message: error.message });
  errors.sort((a, b) => a.index - b.index);
  return { accepted: viewed.accepted + interactions.length, rejected: errors.length, errors, duplicates: viewed.duplicates };
}
