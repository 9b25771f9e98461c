/**
 * An events API request split by what its events are: page views go to ingestion (../ingest/), and
 * only the events with a `kind` (feedback and searches) to ../feedback/.
 */
import { storeInteractions } from '../feedback/interactions.ts';
import { prepareInteraction, type PreparedInteraction } from '../feedback/validate.ts';
import { storeVerified, type IngestProject, type IngestResult, type IngestState } from '../ingest/ingest.ts';
import { checkEach, prepareEvent, type EventError } from '../ingest/validate.ts';
import type { PreparedEvent } from '../model/prepared-event.ts';

/** Feedback and search events carry a `kind`; page views do not. */
function hasKind(input: unknown): input is Record<string, unknown> {
  return typeof input === 'object' && input !== null && !Array.isArray(input) && Object.hasOwn(input, 'kind');
}

/** A request's events checked, not yet stored: page views, feedback and searches, and the errors by position. */
export interface PreparedRequest {
  views: PreparedEvent[];
  interactions: PreparedInteraction[];
  /** Per-event errors by index in the request, in order. */
  errors: EventError[];
}

/**
 * The events API's checks, without I/O (so they can run in a parse thread, see parse-thread.ts):
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

/** Stores a prepared request: page views (signatures checked) through ingestion first, then feedback and searches; resolves once both have committed. */
export async function storePrepared(state: IngestState, project: IngestProject, { views, interactions, errors }: PreparedRequest): Promise<IngestResult> {
  const { stored, duplicates } = await storeVerified(state, project, views);
  await storeInteractions(state, project, interactions);
  return { accepted: stored + interactions.length, rejected: errors.length, errors, duplicates };
}
