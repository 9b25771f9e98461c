import type { WebhookEndpointRow } from '../../storage/tables/webhooks.ts';
import type { DeliveryWithLog } from './deliveries.ts';

const iso = (value: number | null) => (value === null ? null : new Date(value).toISOString());

/** The webhook object of the API, without its secret. */
export function endpointView(row: WebhookEndpointRow) {
  return {
    id: row.id,
    url: row.url,
    events: JSON.parse(row.events) as string[],
    description: row.description,
    createdAt: new Date(row.created_at).toISOString(),
    updatedAt: new Date(row.updated_at).toISOString(),
    disabledAt: iso(row.disabled_at),
    disabledReason: row.disabled_reason,
  };
}

export function deliveryView({ delivery, attempts }: DeliveryWithLog) {
  return {
    id: delivery.id,
    type: delivery.type,
    status: delivery.status,
    attempts: delivery.attempts,
    lastStatusCode: delivery.last_status_code,
    lastAttemptAt: iso(delivery.last_attempt_at),
    nextAttemptAt: iso(delivery.next_attempt_at),
    createdAt: new Date(delivery.created_at).toISOString(),
    log: attempts.map((attempt) => ({
      attempt: attempt.attempt,
      at: new Date(attempt.started_at).toISOString(),
      statusCode: attempt.status_code,
      durationMs: attempt.duration_ms,
      error: attempt.error,
      response: attempt.response_excerpt,
    })),
  };
}
