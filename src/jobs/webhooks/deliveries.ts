import type { Kysely, Selectable } from 'kysely';
import { conflict, invalidRequest, notFound } from '../../http/errors.ts';
import { isId } from '../../lib/ids.ts';
import type { Database } from '../../storage/schema.ts';
import type { WebhookAttemptRow, WebhookDeliveryRow, WebhookEndpointRow } from '../../storage/tables/webhooks.ts';

export interface DeliveryWithLog {
  delivery: Selectable<WebhookDeliveryRow>;
  attempts: WebhookAttemptRow[];
}

/** The attempts of each delivery, oldest first, at most `perDelivery` (the newest). */
async function attemptsOf(db: Kysely<Database>, deliveryIds: string[], perDelivery = 50): Promise<Map<string, WebhookAttemptRow[]>> {
  const byDelivery = new Map<string, WebhookAttemptRow[]>(deliveryIds.map((id) => [id, []]));
  if (deliveryIds.length === 0) return byDelivery;
  const rows = await db.selectFrom('webhook_attempts').selectAll().where('delivery_id', 'in', deliveryIds).orderBy('delivery_id').orderBy('attempt').execute();
  for (const row of rows) byDelivery.get(row.delivery_id)?.push(row);
  for (const [id, attempts] of byDelivery) byDelivery.set(id, attempts.slice(-perDelivery));
  return byDelivery;
}

/** Deliveries of an endpoint, newest first, with their attempts; the cursor is the last id of the previous page. */
export async function listDeliveries(
  db: Kysely<Database>,
  endpoint: WebhookEndpointRow,
  options: { limit: number; cursor?: string },
): Promise<{ deliveries: DeliveryWithLog[]; nextCursor: string | null }> {
  if (options.cursor !== undefined && !isId(options.cursor, 'msg')) {
    throw invalidRequest('cursor must be the nextCursor value of a previous page.', [{ path: '/cursor', message: 'not a cursor' }]);
  }
  const rows = await db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('endpoint_id', '=', endpoint.id)
    .$if(options.cursor !== undefined, (query) => query.where('id', '<', options.cursor as string))
    .orderBy('id', 'desc')
    .limit(options.limit + 1)
    .execute();
  const page = rows.slice(0, options.limit);
  const attempts = await attemptsOf(
    db,
    page.map((row) => row.id),
  );
  return {
    deliveries: page.map((delivery) => ({ delivery, attempts: attempts.get(delivery.id) ?? [] })),
    nextCursor: rows.length > options.limit ? page[page.length - 1].id : null,
  };
}

/**
 * Sends a delivery again as soon as a delivery loop is free, with a fresh retry window; its id (the
 * `webhook-id` receivers deduplicate on) stays the same. While an attempt is in flight it is 409.
 */
export async function redeliver(db: Kysely<Database>, endpoint: WebhookEndpointRow, deliveryId: string, now = Date.now()): Promise<DeliveryWithLog> {
  if (endpoint.disabled_at !== null) throw conflict('The endpoint is disabled; turn it on with PATCH {"enabled": true} before redelivering.');
  const delivery = isId(deliveryId, 'msg')
    ? await db.selectFrom('webhook_deliveries').selectAll().where('id', '=', deliveryId).where('endpoint_id', '=', endpoint.id).executeTakeFirst()
    : undefined;
  if (!delivery) throw notFound(`Delivery ${deliveryId}`);
  const reset = await db
    .updateTable('webhook_deliveries')
    .set({ status: 'pending', next_attempt_at: now, retrying_since: now, locked_by: null, locked_until: null })
    .where('id', '=', delivery.id)
    .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', now)]))
    .executeTakeFirst();
  if (reset.numUpdatedRows === 0n) throw conflict('An attempt of this delivery is in flight; wait for it to finish, then redeliver if it failed.');
  const updated = await db.selectFrom('webhook_deliveries').selectAll().where('id', '=', delivery.id).executeTakeFirstOrThrow();
  return { delivery: updated, attempts: (await attemptsOf(db, [delivery.id])).get(delivery.id) ?? [] };
}

/** Deletes delivered and failed deliveries (with their attempts) of events older than `before`; returns how many. */
export async function pruneDeliveries(db: Kysely<Database>, before: number): Promise<number> {
  const result = await db.deleteFrom('webhook_deliveries').where('status', '!=', 'pending').where('created_at', '<', before).executeTakeFirst();
  return Number(result.numDeletedRows);
}
