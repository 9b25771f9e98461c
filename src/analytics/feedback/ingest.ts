import { projectKey } from '../ingest/dense-ids.ts';
import { checkEach, storeVerified, type EventError, type IngestProject, type IngestResult, type IngestState } from '../ingest/ingest.ts';
import { prepareEvent, type PreparedEvent } from '../ingest/validate.ts';
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

/** A request's events checked, not yet stored: page views, feedback and searches, and the errors by position. */
export interface PreparedRequest {
  views: PreparedEvent[];
  interactions: PreparedInteraction[];
  /** Per-event errors by index in the request, in order. */
  errors: EventError[];
}

/**
 * The events API's checks, without I/O (so they can run in a parse thread, see ../http/parse-thread.ts):
 * events with a `kind` are feedback or searches, the others page views; an input that is an Error
 * (an NDJSON line that did not parse) is that event's error.
 */
export function prepareRequest(inputs: unknown[], now = Date.now()): PreparedRequest {
  const { checked, errors } = checkEach(inputs, (input) => (hasKind(input) ? prepareInteraction(input, now) : prepareEvent(input, now)));
  const views: PreparedEvent[] = [];
  const interactions: PreparedInteraction[] = [];
  for (const event of checked) {
    if ('kind' in event) interactions.push(event);
    else views.push(event);
  }
  return { views, interactions, errors };
}

/** Stores a prepared request: page views (signatures checked) first, then feedback and searches; resolves once both have committed. */
export async function storePrepared(state: IngestState, project: IngestProject, { views, interactions, errors }: PreparedRequest): Promise<IngestResult> {
  const { stored, duplicates } = await storeVerified(state, project, views);
  await storeInteractions(state, project, interactions);
  return { accepted: stored + interactions.length, rejected: errors.length, errors, duplicates };
}
