import { clientNetwork } from '../../http/client-address.ts';
import type { AppContext } from '../../http/context.ts';
import { invalidRequest } from '../../http/errors.ts';
import { rateLimited, takeRateLimit } from '../../http/rate-limit.ts';
import type { IngestProject } from '../ingest/ingest.ts';
import { reportIngested } from '../ingest/ingested.ts';
import { storeInteractions } from './interactions.ts';
import { prepareInteraction, type PreparedInteraction } from './validate.ts';

/**
 * Checks a feedback or search event from the browser tracker, before the collect endpoint takes from
 * its limits (so a refused event uses up no one's budget). A feedback's path defaults to the page it
 * was sent from. Throws a 400 that says what to fix.
 */
export function prepareCollectedInteraction(context: AppContext, event: Record<string, unknown>, page: URL): PreparedInteraction {
  if (event.kind === 'feedback' && event.path === undefined) event.path = page.pathname;
  try {
    return prepareInteraction(event, Date.now());
  } catch (error) {
    reportIngested(context, 'tracker', 0, 1);
    throw invalidRequest((error as Error).message);
  }
}

/**
 * Stores a checked feedback or search event, after the collect endpoint's view limits. Feedback (which
 * carries text a person typed) also takes from a tighter per-address budget
 * (QUIRE_FEEDBACK_RATE_LIMIT_PER_ADDRESS).
 */
export async function storeCollectedInteraction(
  context: AppContext,
  project: IngestProject,
  address: string | undefined,
  prepared: PreparedInteraction,
): Promise<void> {
  if (prepared.kind === 'feedback') {
    const { config, storage } = context;
    const state = await storage.db
      .transaction()
      .execute((trx) =>
        takeRateLimit(trx, storage.profile, `collect-feedback:${clientNetwork(address)}`, { limit: config.feedbackRateLimitPerAddress, windowMs: 60_000 }),
      );
    if (!state.allowed)
      throw rateLimited(state, `This address has sent ${state.limit} feedback items in the last minute (QUIRE_FEEDBACK_RATE_LIMIT_PER_ADDRESS).`);
  }
  await storeInteractions(context.analytics, project, [prepared]);
}
