/** What a webhook endpoint can subscribe to; an endpoint created without a list gets every type. */
export const webhookEventTypes = [
  'job.created',
  'job.completed',
  'job.failed',
  'job.archived',
  'job.cancelled',
  'pull_request.opened',
  'gap.opened',
  'gap.fixed',
] as const;

export type WebhookEventType = (typeof webhookEventTypes)[number];

export function isWebhookEventType(value: string): value is WebhookEventType {
  return (webhookEventTypes as readonly string[]).includes(value);
}
