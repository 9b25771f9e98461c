/**
 * Captured requests with keys of their own (a log line's place, a drain record's id, a proxied
 * request's counter), validated and stored through ingestion: a batch sent or read again finds its
 * events by key and does not count them twice.
 */
import { prepareAll, storeVerified, type IngestProject, type IngestState } from '../ingest/ingest.ts';
import type { IncomingEvent } from '../ingest/validate.ts';
import type { PreparedEvent } from '../model/prepared-event.ts';
import { invalidReason } from './request-event.ts';

/** Validates events and gives each valid one its key; an invalid one is skipped under a reason that says what to fix. */
export function prepareKeyed(inputs: unknown[], keys: string[], skip: (reason: string) => void, now = Date.now()): PreparedEvent[] {
  const { events, errors } = prepareAll(inputs, now);
  let error = 0;
  let kept = 0;
  inputs.forEach((_input, index) => {
    if (errors[error]?.index === index) error++;
    else events[kept++].eventKey = keys[index];
  });
  for (const problem of errors) skip(invalidReason(problem.message));
  return events;
}

/**
 * Validates events, gives each its key (prepareKeyed), checks Web Bot Auth signatures of those that
 * carry headers, and stores them. The proxy stores its keyed requests through it; drains prepare theirs
 * in a parse thread (../drains/prepare-batch.ts) and store them with storeVerified.
 */
export async function storeKeyedEvents(
  analytics: IngestState,
  project: IngestProject,
  inputs: IncomingEvent[],
  keys: string[],
  skip: (reason: string) => void,
): Promise<{ stored: number; duplicates: number }> {
  return storeVerified(analytics, project, prepareKeyed(inputs, keys, skip));
}
