import type { Insertable, Kysely } from 'kysely';
import { newId } from '../../lib/ids.ts';
import type { Database } from '../../storage/schema.ts';
import type { JobRow } from '../../storage/tables/jobs.ts';
import type { WebhookDeliveryRow } from '../../storage/tables/webhooks.ts';
import { jobView } from '../view.ts';
import type { WebhookEventType } from './events.ts';

/**
 * Queues a delivery of `type` for `job` to every enabled endpoint of its project subscribed to it.
 * Call it inside the transaction that makes the change, with the job as it is after the change: the
 * deliveries exist exactly when the change does. Returns how many were queued; a caller that can
 * should then emit `webhooks-queued`, so this process's delivery loop sends them at once.
 */
export function queueJobEvent(trx: Kysely<Database>, job: JobRow, type: WebhookEventType, now = Date.now()): Promise<number> {
  return queueProjectEvent(trx, job.project_id, type, { job: jobView(job) }, now);
}

/**
 * Queues a delivery of `type` with `data` to every enabled endpoint of the project subscribed to it,
 * signed and retried like a job's (docs gaps send `gap.opened` and `gap.fixed` this way). Same rules
 * as `queueJobEvent`.
 */
export async function queueProjectEvent(trx: Kysely<Database>, projectId: string, type: WebhookEventType, data: object, now = Date.now()): Promise<number> {
  const endpoints = await trx
    .selectFrom('webhook_endpoints')
    .select(['id', 'events'])
    .where('project_id', '=', projectId)
    .where('disabled_at', 'is', null)
    .execute();
  const subscribed = endpoints.filter((endpoint) => (JSON.parse(endpoint.events) as string[]).includes(type));
  if (subscribed.length === 0) return 0;
  const payload = JSON.stringify({ type, timestamp: new Date(now).toISOString(), data });
  const rows: Insertable<WebhookDeliveryRow>[] = subscribed.map((endpoint) => ({
    id: newId('msg'),
    endpoint_id: endpoint.id,
    project_id: projectId,
    type,
    payload,
    status: 'pending',
    next_attempt_at: now,
    retrying_since: now,
    locked_by: null,
    locked_until: null,
    last_status_code: null,
    last_attempt_at: null,
    created_at: now,
  }));
  await trx.insertInto('webhook_deliveries').values(rows).execute();
  return rows.length;
}

/** The PostgreSQL channel on which a process says it queued deliveries, so other processes' delivery loops look at once. */
export const webhooksChannel = 'quire_webhooks';

declare module '../../http/context.ts' {
  interface QuireEvents {
    /** Webhook deliveries were committed by this process; its delivery loop looks at once. */
    'webhooks-queued': [];
  }
}
