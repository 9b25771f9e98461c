import type { Generated } from 'kysely';

/** Rows of the webhook tables (timestamps are epoch milliseconds). */
export interface WebhookEndpointRow {
  id: string;
  org_id: string;
  project_id: string;
  url: string;
  /** JSON array of the event types the endpoint is subscribed to. */
  events: string;
  description: string | null;
  /** The signing secret (`whsec_…`), sealed with QUIRE_SECRET_KEY when one is set. */
  secret: string;
  /** The secret before the last rotation, still signing beside the new one until `previous_secret_until`. */
  previous_secret: string | null;
  previous_secret_until: number | null;
  /** When the current run of failed attempts began; null after a success. */
  failing_since: number | null;
  disabled_at: number | null;
  disabled_reason: string | null;
  created_at: number;
  updated_at: number;
}

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

/** One event for one endpoint: sent until a 2xx answer, or until its retry window (QUIRE_WEBHOOK_RETRY_HOURS) ends. */
export interface WebhookDeliveryRow {
  /** Also the Standard Webhooks `webhook-id`: the same for every attempt, so receivers can deduplicate. */
  id: string;
  endpoint_id: string;
  project_id: string;
  type: string;
  /** The body sent, fixed when the event happened. */
  payload: string;
  status: DeliveryStatus;
  attempts: Generated<number>;
  /** When the next attempt is due; null once delivered or failed. */
  next_attempt_at: number | null;
  /** Start of the retry window: when the event happened, or when it was last redelivered by hand. */
  retrying_since: number;
  locked_by: string | null;
  locked_until: number | null;
  last_status_code: number | null;
  last_attempt_at: number | null;
  created_at: number;
}

/** One attempt of a delivery: the delivery log. */
export interface WebhookAttemptRow {
  delivery_id: string;
  attempt: number;
  started_at: number;
  status_code: number | null;
  duration_ms: number;
  error: string | null;
  /** The first bytes of the answer, to tell why an endpoint refused. */
  response_excerpt: string | null;
  /** The delivery loop (one per process) that made the attempt, for the server logs. */
  sent_by: string;
}

export interface WebhooksTables {
  webhook_endpoints: WebhookEndpointRow;
  webhook_deliveries: WebhookDeliveryRow;
  webhook_attempts: WebhookAttemptRow;
}
