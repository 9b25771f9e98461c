import type { Storage } from '../../storage/dialect.ts';
import type { WebhookEndpointRow } from '../../storage/tables/webhooks.ts';

/** A delivery attempt this process holds: what to send and where. */
export interface ClaimedDelivery {
  id: string;
  attempt: number;
  payload: string;
  endpoint: Pick<WebhookEndpointRow, 'id' | 'url' | 'secret' | 'previous_secret' | 'previous_secret_until'>;
}

/**
 * Takes up to `count` due deliveries of enabled endpoints for `loopId`, each leased for `leaseMs`, and
 * counts the attempt. On PostgreSQL concurrent claimers skip each other's rows (`FOR UPDATE SKIP
 * LOCKED`); SQLite's write lock, taken at BEGIN, serializes them. A lease that expired (its process
 * died mid-attempt) makes the delivery due again: at least once, never lost.
 */
export async function claimDeliveries(storage: Storage, loopId: string, count: number, leaseMs: number, now = Date.now()): Promise<ClaimedDelivery[]> {
  const { db, profile } = storage;
  return db.transaction().execute(async (trx) => {
    const due = await trx
      .selectFrom('webhook_deliveries')
      .select(['id', 'endpoint_id', 'attempts', 'payload'])
      .where('status', '=', 'pending')
      .where('next_attempt_at', '<=', now)
      .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', now)]))
      // Correlated, so the due-time index drives the query (an IN list of enabled endpoints made SQLite scan by endpoint and sort).
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom('webhook_endpoints')
              .select('webhook_endpoints.id')
              .whereRef('webhook_endpoints.id', '=', 'webhook_deliveries.endpoint_id')
              .where('webhook_endpoints.disabled_at', 'is not', null),
          ),
        ),
      )
      .orderBy('next_attempt_at')
      .orderBy('id')
      .limit(count)
      .$if(profile.skipLocked, (query) => query.forUpdate().skipLocked())
      .execute();
    if (due.length === 0) return [];
    await trx
      .updateTable('webhook_deliveries')
      .set((eb) => ({ attempts: eb('attempts', '+', 1), locked_by: loopId, locked_until: now + leaseMs }))
      .where(
        'id',
        'in',
        due.map((delivery) => delivery.id),
      )
      .execute();
    const endpointIds = [...new Set(due.map((delivery) => delivery.endpoint_id))];
    const endpoints = await trx
      .selectFrom('webhook_endpoints')
      .select(['id', 'url', 'secret', 'previous_secret', 'previous_secret_until'])
      .where('id', 'in', endpointIds)
      .execute();
    const byId = new Map(endpoints.map((endpoint) => [endpoint.id, endpoint]));
    return due.map((delivery) => ({ id: delivery.id, attempt: delivery.attempts + 1, payload: delivery.payload, endpoint: byId.get(delivery.endpoint_id)! }));
  });
}
