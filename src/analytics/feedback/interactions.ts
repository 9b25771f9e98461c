import { projectKey } from '../ingest/dense-ids.ts';
import type { IngestProject, IngestState } from '../ingest/ingest.ts';
import { storeFeedback } from './feedback-store.ts';
import { storeSearches } from './search-store.ts';
import type { PreparedFeedback, PreparedInteraction, PreparedSearch } from './validate.ts';
import { visitorColumns } from './visitor.ts';

/**
 * Stores checked feedback and search events in one transaction, with their senders' visitor ids
 * (visitor.ts); resolves once it has committed. The rows written are then counted towards analyzing
 * the tables (storage/statistics.ts). Page views never come here: the events route and the beacon
 * hand them to ingestion (../ingest/ingest.ts).
 */
export async function storeInteractions(state: IngestState, project: IngestProject, events: PreparedInteraction[]): Promise<void> {
  if (events.length === 0) return;
  const key = await projectKey(state.storage.db, state.ids, project.id);
  const written = await state.storage.db.transaction().execute(async (trx) => {
    const visitors = await visitorColumns(trx, state, project, key, events);
    return {
      ...(await storeFeedback(
        trx,
        key,
        events.filter((event): event is PreparedFeedback => event.kind === 'feedback'),
        visitors,
      )),
      ...(await storeSearches(
        trx,
        key,
        events.filter((event): event is PreparedSearch => event.kind === 'search'),
        visitors,
      )),
    };
  });
  state.statistics.wrote(written);
}
